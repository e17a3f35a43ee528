export * from './capacity.ts';
export * from './interaction-facts.ts';
export * from './recording-index.ts';
export * from './record-interactions.ts';
