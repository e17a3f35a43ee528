export * from './store-contract.ts';
export * from './decider-spec.ts';
export * from './arbitraries.ts';
export * from './engine-model.ts';
