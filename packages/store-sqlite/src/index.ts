export { openSqliteStore, SqliteEventStore, type SqliteStoreOptions } from './sqlite-store.ts';
export { StoreFileError, SCHEMA_VERSION, APPLICATION_ID } from './schema.ts';
