export * from './contract.ts';
export * from './read.ts';
export { LENIENT } from './wire.ts';
