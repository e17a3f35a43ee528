// The public face of @sdp/store-postgres; what is not listed is internal (packaging/api/store-postgres.api.md shows every change).
export { PostgresEventStore, StoreUnavailable, connectPostgresStore, type PostgresStoreOptions } from './postgres-store.ts';
