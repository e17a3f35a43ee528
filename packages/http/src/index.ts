export * from './wire.ts';
export * from './credentials.ts';
export * from './body.ts';
export * from './route.ts';
export * from './api-handler.ts';
export * from './node-listener.ts';
export * from './fetch-handler.ts';
export * from './sample-paths.ts';
// ---- issue 13: the stand-in's toolbox ----
export * from './openapi.ts';
