export * from './reference-sets.ts';
export * from './handlers.ts';
