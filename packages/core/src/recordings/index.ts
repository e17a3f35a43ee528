export * from './recording.ts';
export * from './recording-filter.ts';
export * from './recording-view.ts';
export * from './handlers.ts';
