import type Database from 'better-sqlite3';

/** Marks a file as ours (`PRAGMA application_id`): 'SDPE'. A database carrying another id is foreign. */
export const APPLICATION_ID = 0x53445045;

/**
 * The event every charged call writes, most of the log, which no reader asks for by type (an account's
 * charges are read by their stream). The type index leaves it out: each group commit then writes about
 * a third fewer pages (the index's leaf and its splits), and each insert maintains one index less.
 * `readTypes` naming it still answers, scanning the log from the position on.
 */
export const UNINDEXED_TYPE = 'CreditsCharged';

/**
 * The schema, one step per version. `PRAGMA user_version` records the steps applied; opening a database
 * of an older version applies the rest in one transaction, so a failed migration leaves it as it was.
 */
export const MIGRATIONS: readonly string[] = [
  // 1: the log. `position` is the rowid, so global order costs no extra index.
  `CREATE TABLE events (
     position INTEGER PRIMARY KEY,
     stream   TEXT    NOT NULL,
     version  INTEGER NOT NULL,
     id       TEXT    NOT NULL,
     type     TEXT    NOT NULL,
     data     TEXT    NOT NULL,
     time     INTEGER NOT NULL,
     UNIQUE (stream, version)
   )`,
  // 2: snapshots, one per stream and decider kind (the state as a structured-clone buffer).
  `CREATE TABLE snapshots (
     stream  TEXT    NOT NULL,
     kind    TEXT    NOT NULL,
     version INTEGER NOT NULL,
     state   BLOB    NOT NULL,
     PRIMARY KEY (stream, kind)
   ) WITHOUT ROWID`,
  // 3: each event's schema version (of its type's data); every event written before it is at version 1.
  `ALTER TABLE events ADD COLUMN schema_version INTEGER NOT NULL DEFAULT 1`,
  // 4: events by type (rowid order within a type), so a projection reads its types without the rest.
  `CREATE INDEX events_type ON events (type)`,
  // 5: the same, without the charges (see UNINDEXED_TYPE).
  `DROP INDEX events_type;
   CREATE INDEX events_type ON events (type) WHERE type <> '${UNINDEXED_TYPE}'`,
  // 6: the liveness of the processes sharing the file (HostLiveness), beside the log and never in it:
  // each host's last renewal (this machine's clock, and the host's own) and the accounts it holds.
  `CREATE TABLE live_hosts (
     host       TEXT    PRIMARY KEY,
     renewed_at INTEGER NOT NULL,
     alive_at   INTEGER NOT NULL
   ) WITHOUT ROWID;
   CREATE INDEX live_hosts_renewed ON live_hosts (renewed_at);
   CREATE TABLE live_host_accounts (
     host    TEXT NOT NULL,
     account TEXT NOT NULL,
     PRIMARY KEY (host, account)
   ) WITHOUT ROWID`,
];

export const SCHEMA_VERSION = MIGRATIONS.length;

export class StoreFileError extends Error {
  readonly path: string;
  constructor(path: string, message: string, options?: { cause?: unknown }) {
    super(`${path}: ${message}`, options);
    this.name = 'StoreFileError';
    this.path = path;
  }
}

/**
 * Checks that the file is an SDP event store (or an empty database) before anything is written to it,
 * then (after `beforeWrite`, which sets the journal mode) brings its schema up to `upTo` (the newest by default; tests build older files with a lower one).
 */
export function prepareSchema(db: Database.Database, path: string, upTo = SCHEMA_VERSION, beforeWrite?: () => void): void {
  let appId: number;
  let version: number;
  let tables: number;
  try {
    appId = db.pragma('application_id', { simple: true }) as number;
    version = db.pragma('user_version', { simple: true }) as number;
    tables = (db.prepare(`SELECT count(*) AS n FROM sqlite_schema WHERE name NOT LIKE 'sqlite_%'`).get() as { n: number }).n;
  } catch (error) {
    const code = (error as { code?: string }).code ?? '';
    if (code.startsWith('SQLITE_READONLY') || code.startsWith('SQLITE_CANTOPEN')) {
      throw new StoreFileError(path, `is not writable (${(error as Error).message}); check the file and folder permissions`, { cause: error });
    }
    throw new StoreFileError(path, `not a readable SQLite database (${(error as Error).message}); the file was left untouched`, { cause: error });
  }
  const empty = appId === 0 && version === 0 && tables === 0;
  if (!empty && appId !== APPLICATION_ID) {
    throw new StoreFileError(path, `is a SQLite database of another application (application_id ${appId}, ${tables} tables); refusing to use or change it`);
  }
  if (version > SCHEMA_VERSION) {
    throw new StoreFileError(path, `has schema version ${version}, newer than this build knows (${SCHEMA_VERSION}); upgrade the software`);
  }
  beforeWrite?.();
  if (version >= upTo) return;
  db.transaction(() => {
    if (empty) db.pragma(`application_id = ${APPLICATION_ID}`);
    for (let v = version; v < upTo; v++) db.exec(MIGRATIONS[v]!);
    db.pragma(`user_version = ${upTo}`);
  }).immediate();
}
