export * from './source-types.ts';
export * from './managed-source.ts';
export * from './ingestion-limit.ts';
export * from './ingestion-body.ts';
export * from './handlers.ts';
