import { deserialize } from 'node:v8';
import type Database from 'better-sqlite3';
import type { Snapshot, StoredEvent } from '@sdp/core/kernel';
import type { LogSync } from './log-sync.ts';
import { explainFileError } from './open-file.ts';
import { StoreFileError, UNINDEXED_TYPE } from './schema.ts';

type Row = [position: number, stream: string, version: number, id: string, type: string, data: string, time: number, schemaVersion: number];

const COLUMNS = 'position, stream, version, id, type, data, time, schema_version';

/**
 * The file's reads. Each waits for the syncs of the commits made before it (`durableRead`), so nothing is
 * read that a power cut could still take back, and reports a damaged file as such, naming it.
 */
export class SqliteReads {
  private readonly sql;
  /** `readTypes` statements by how many types they name, negative when one is the unindexed type. */
  private readonly byTypes = new Map<number, Database.Statement>();

  constructor(
    private readonly db: Database.Database,
    private readonly path: string,
    private readonly log: LogSync,
    private readonly isClosed: () => boolean,
  ) {
    this.sql = {
      head: db.prepare('SELECT coalesce(max(position), 0) FROM events').pluck(),
      readStream: db.prepare(`SELECT ${COLUMNS} FROM events WHERE stream = ? AND version > ? ORDER BY version`).raw(),
      readAll: db.prepare(`SELECT ${COLUMNS} FROM events WHERE position > ? ORDER BY position LIMIT ?`).raw(),
      readSnapshot: db.prepare('SELECT version, state FROM snapshots WHERE stream = ? AND kind = ?'),
    };
  }

  readStream(stream: string, afterVersion = 0): Promise<StoredEvent[]> {
    return this.durableRead(() => (this.sql.readStream.all(stream, afterVersion) as Row[]).map(toEvent));
  }

  readAll(afterPosition = 0, limit = Number.MAX_SAFE_INTEGER): Promise<StoredEvent[]> {
    return this.durableRead(() => (this.sql.readAll.all(afterPosition, limit) as Row[]).map(toEvent));
  }

  async readTypes(types: readonly string[], afterPosition = 0, limit = Number.MAX_SAFE_INTEGER): Promise<StoredEvent[]> {
    if (types.length === 0) return [];
    const statement = this.typesStatement(types.length, !types.includes(UNINDEXED_TYPE));
    return this.durableRead(() => (statement.all(...types, afterPosition, limit) as Row[]).map(toEvent));
  }

  head(): Promise<number> {
    return this.durableRead(() => this.sql.head.get() as number);
  }

  async readSnapshot(stream: string, kind: string): Promise<Snapshot | undefined> {
    const row = await this.durableRead(() => this.sql.readSnapshot.get(stream, kind) as { version: number; state: Buffer } | undefined);
    return row ? { stream, kind, version: row.version, state: deserialize(row.state) } : undefined;
  }

  /** A read of the open file, a damaged one reported as such (also for the host records). */
  read<T>(fn: () => T): T {
    if (this.isClosed()) throw new StoreFileError(this.path, 'the store is closed');
    try {
      return fn();
    } catch (error) {
      throw explainFileError(this.path, error, 'read failed');
    }
  }

  /** A read answered once every commit it could have seen is synced: nothing read can be taken back by a power cut. */
  private async durableRead<T>(fn: () => T): Promise<T> {
    const seen = this.log.made;
    const value = this.read(fn);
    if (!this.log.covers(seen)) await this.log.synced(seen);
    return value;
  }

  private typesStatement(n: number, indexed: boolean): Database.Statement {
    const key = indexed ? n : -n;
    let statement = this.byTypes.get(key);
    if (!statement) {
      const marks = Array.from({ length: n }, () => '?').join(', ');
      // The type index is partial: SQLite seeks in it only when the query repeats its condition.
      const condition = indexed ? ` AND type <> '${UNINDEXED_TYPE}'` : '';
      statement = this.db.prepare(`SELECT ${COLUMNS} FROM events WHERE type IN (${marks})${condition} AND position > ? ORDER BY position LIMIT ?`).raw();
      this.byTypes.set(key, statement);
    }
    return statement;
  }
}

function toEvent(r: Row): StoredEvent {
  return { position: r[0], stream: r[1], version: r[2], id: r[3], type: r[4], data: JSON.parse(r[5]), time: r[6], schemaVersion: r[7] };
}
