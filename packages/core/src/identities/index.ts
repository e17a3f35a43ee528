export * from './identity.ts';
export * from './identity-access.ts';
export * from './handlers.ts';
export * from './paging.ts';
