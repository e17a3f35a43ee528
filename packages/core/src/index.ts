export * from './engine/index.ts';
export * from './catalogue/index.ts';
export * from './accounting/index.ts';
export * from './platform.ts';
export * from './identities/index.ts';
export * from './filters/index.ts';
export * from './push/index.ts';
export * from './sources/index.ts';
