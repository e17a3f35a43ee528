export { connectPostgresStore, PostgresEventStore, StoreUnavailable, type PostgresStoreOptions } from './postgres-store.ts';
export { SCHEMA_VERSION } from './schema.ts';
