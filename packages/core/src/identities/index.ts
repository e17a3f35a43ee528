export * from './identity.ts';
export * from './identity-access.ts';
export * from './handlers.ts';
