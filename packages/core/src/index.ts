export * from './engine/index.ts';
export * from './catalogue/index.ts';
export * from './accounting/index.ts';
export * from './platform.ts';
export * from './identities/index.ts';
