// The public face of @sdp/store-sqlite; what is not listed is internal (packaging/api/store-sqlite.api.md shows every change).
export { StoreFileError } from './schema.ts';
export { SqliteEventStore, openSqliteStore, type SqliteStoreOptions } from './sqlite-store.ts';
