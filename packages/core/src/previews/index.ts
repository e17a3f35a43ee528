export * from './preview-analyses.ts';
export * from './preview.ts';
export * from './handlers.ts';
