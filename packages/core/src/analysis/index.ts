export * from './targets.ts';
export * from './analysis-request.ts';
export * from './distribution.ts';
export * from './run-analysis.ts';
export * from './handlers.ts';
