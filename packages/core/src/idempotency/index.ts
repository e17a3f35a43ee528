export * from './idempotency-keys.ts';
