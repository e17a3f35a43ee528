export * from './package.ts';
export * from './package-service.ts';
export * from './api-key.ts';
export * from './account.ts';
export * from './credit-window.ts';
