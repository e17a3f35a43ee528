export * from './store-contract.ts';
