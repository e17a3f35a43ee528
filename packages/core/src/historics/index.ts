export * from './progress.ts';
export * from './historics-query.ts';
export * from './availability.ts';
export * from './archive.ts';
export * from './handlers.ts';
