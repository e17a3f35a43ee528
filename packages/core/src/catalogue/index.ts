export * from './versions.ts';
export * from './endpoints.ts';
export * from './routes.ts';
