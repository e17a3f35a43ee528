export * from './usage.ts';
