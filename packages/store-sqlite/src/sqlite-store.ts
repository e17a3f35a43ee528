import Database from 'better-sqlite3';
import {
  CommitSignal,
  ForeignWrites,
  type AppendResult,
  type CommitListener,
  type EventStore,
  type Snapshot,
  type StopWatching,
  type StoreCapabilities,
  type StoredEvent,
  type StreamAppend,
} from '@sdp/core/kernel';
import { fdatasync } from 'node:fs';
import { serialize } from 'node:v8';
import { GroupCommit } from './group-commit.ts';
import { SqliteHostRecords } from './host-records.ts';
import { LogCheckpoint } from './log-checkpoint.ts';
import { LogSync } from './log-sync.ts';
import { isInMemory, openDatabase } from './open-file.ts';
import { SqliteReads } from './readers.ts';
import { UNINDEXED_TYPE } from './schema.ts';

/**
 * How often a watched store asks whether another process wrote the file: a live-stream subscriber on one
 * process hears what another ingested within this (plus its read), at the cost of one pragma, no table read.
 */
const FOREIGN_POLL_MS = 100;

export interface SqliteStoreOptions {
  /** How long a writer waits for another process holding the file's write lock (ms). */
  busyTimeoutMs?: number;
  /**
   * Makes the write-ahead log durable (`fs.fdatasync` on its descriptor), and the database file after a
   * checkpoint; tests hold it to watch the order.
   */
  syncLog?: (fd: number, done: (error: Error | null) => void) => void;
}

/**
 * The embedded store. Every acknowledged write is on disk: the write-ahead log is synced after each
 * commit, and a write is acknowledged only once the sync that covers it has finished. Group commit keeps
 * that cheap: the writes requested while a sync runs (or, with none running, in one turn of the event
 * loop) share one transaction, committed as soon as the sync ends; each append checks everything before
 * it writes, so one refused append (a version conflict) writes nothing and the others commit. Only when a
 * request fails after writing is the group run again with a SAVEPOINT per request.
 *
 * The syncs run off the event loop: SQLite commits with `synchronous=NORMAL`, and the store then syncs the
 * log with `fdatasync` in Node's thread pool — the guarantee of `synchronous=FULL`, whose sync inside
 * COMMIT held the event loop for the whole flush. Checkpoints are the store's own for the same reason
 * (`LogCheckpoint`). Reads wait for the syncs of the commits made before them, so nothing is read that a
 * power cut could still take back.
 */
export class SqliteEventStore implements EventStore {
  readonly path: string;
  /**
   * A file other processes of this machine may open (`sdp serve --workers`, the accounts tool); appends
   * naming the event they expect a stream to end with are checked, so engines in several processes on one
   * file pipeline an account's calls too. Reads are parsed afresh; the file keeps the hosts' records.
   */
  readonly capabilities: StoreCapabilities;
  /** Group commits run and write requests they carried: `requests / commits` is the sharing achieved. */
  readonly stats = { commits: 0, requests: 0, syncs: 0 };
  private readonly db: Database.Database;
  private readonly inMemory: boolean;
  private closed = false;
  private readonly commits = new CommitSignal();
  /** Another process' commits to the file, seen by `PRAGMA data_version` (no read of the table). */
  private readonly foreign: ForeignWrites;
  private foreignSeen: number | undefined;
  /** The writer and its group commit (group-commit.ts); the log's syncs and checkpoints (log-sync.ts). */
  private readonly writer: GroupCommit;
  private readonly log: LogSync;
  private readonly reads: SqliteReads;
  private readonly hostRecords: SqliteHostRecords;
  private readonly sql;

  constructor(path: string, options: SqliteStoreOptions = {}) {
    this.path = path;
    const inMemory = (this.inMemory = isInMemory(path));
    const db = (this.db = openDatabase(path, options.busyTimeoutMs));
    this.writer = new GroupCommit(db, path, inMemory, this.stats, () => this.commits.notify());
    this.log = new LogSync(path, options.syncLog ?? ((fd, done) => fdatasync(fd, done)), inMemory ? undefined : new LogCheckpoint(db, path), this.stats, (soon) => this.writer.resume(soon));
    this.writer.syncedBy(this.log);
    this.reads = new SqliteReads(db, path, this.log, () => this.closed);
    this.hostRecords = new SqliteHostRecords(db, (run) => this.writer.write(run, false), (run) => this.reads.read(run));
    this.capabilities = { kind: 'sqlite', reach: inMemory ? 'process' : 'machine', checksLastEventId: true, freshReads: true, hostRecords: this.hostRecords };
    this.sql = {
      dataVersion: db.prepare('PRAGMA data_version').pluck(),
      writeSnapshot: db.prepare(
        `INSERT INTO snapshots (stream, kind, version, state) VALUES (?, ?, ?, ?)
         ON CONFLICT (stream, kind) DO UPDATE SET version = excluded.version, state = excluded.state
         WHERE excluded.version >= snapshots.version`,
      ),
      clearEvents: db.prepare('DELETE FROM events'),
      clearSnapshots: db.prepare('DELETE FROM snapshots'),
    };
    this.foreign = new ForeignWrites(
      this.commits,
      () => {
        if (this.closed) return false;
        const seen = this.sql.dataVersion.get() as number;
        const changed = this.foreignSeen !== undefined && seen !== this.foreignSeen;
        this.foreignSeen = seen;
        return changed;
      },
      (tick) => {
        const timer = setInterval(tick, FOREIGN_POLL_MS);
        timer.unref();
        return () => clearInterval(timer);
      },
    );
  }

  append(batch: StreamAppend[]): Promise<AppendResult> {
    const appended = this.writer.append(batch);
    // Only a watched store adds a reaction: the unwatched hot path stays one promise.
    if (this.commits.watched) appended.then((result) => this.commits.wrote(batch, result), () => {});
    return appended;
  }

  readStream(stream: string, afterVersion = 0): Promise<StoredEvent[]> {
    return this.reads.readStream(stream, afterVersion);
  }

  readAll(afterPosition = 0, limit = Number.MAX_SAFE_INTEGER): Promise<StoredEvent[]> {
    return this.reads.readAll(afterPosition, limit);
  }

  readTypes(types: readonly string[], afterPosition = 0, limit = Number.MAX_SAFE_INTEGER): Promise<StoredEvent[]> {
    return this.reads.readTypes(types, afterPosition, limit);
  }

  head(): Promise<number> {
    return this.reads.head();
  }

  readSnapshot(stream: string, kind: string): Promise<Snapshot | undefined> {
    return this.reads.readSnapshot(stream, kind);
  }

  /**
   * The durability in force: the journal mode and SQLite's own `synchronous` level on this connection
   * (WAL and NORMAL for a file), and whether the store syncs the log before acknowledging each write.
   */
  durability(): { journalMode: string; synchronous: number; logSyncedBeforeAcknowledgement: boolean } {
    return {
      journalMode: this.db.pragma('journal_mode', { simple: true }) as string,
      synchronous: this.db.pragma('synchronous', { simple: true }) as number,
      logSyncedBeforeAcknowledgement: !this.inMemory,
    };
  }

  writeSnapshot(snapshot: Snapshot): Promise<void> {
    let state: Buffer;
    try {
      state = serialize(snapshot.state);
    } catch (error) {
      return Promise.reject(new Error(`snapshot of ${snapshot.stream} (${snapshot.kind}) cannot be stored: ${(error as Error).message}`, { cause: error }));
    }
    return this.writer.write(() => {
      this.sql.writeSnapshot.run(snapshot.stream, snapshot.kind, snapshot.version, state);
    }, false);
  }

  /**
   * One DELETE through the type index (its condition repeated, as `readTypes` does), keeping each
   * stream's last event; what this connection knew of versions and the head is read again after.
   */
  dropTypes(types: readonly string[], throughPosition: number, streamPrefix: string): Promise<number> {
    const named = [...new Set(types)].filter((t) => t !== UNINDEXED_TYPE);
    if (named.length === 0) return Promise.resolve(0);
    const marks = named.map(() => '?').join(', ');
    return this.writer.write(() => {
      const statement = this.db.prepare(
        `DELETE FROM events WHERE type IN (${marks}) AND type <> '${UNINDEXED_TYPE}' AND position <= ? AND substr(stream, 1, ?) = ?
           AND version < (SELECT max(last.version) FROM events AS last WHERE last.stream = events.stream)`,
      );
      const { changes } = statement.run(...named, throughPosition, streamPrefix.length, streamPrefix);
      if (changes > 0) this.writer.forget();
      return changes;
    }, false);
  }

  clear(): Promise<void> {
    return this.writer.write(() => {
      this.sql.clearEvents.run();
      this.sql.clearSnapshots.run();
      this.hostRecords.clear();
      this.writer.forget();
    }, false);
  }

  watchCommits(listener: CommitListener): StopWatching {
    const stop = this.commits.watch(listener);
    this.foreign.follow();
    return () => {
      stop();
      this.foreign.follow();
    };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.foreign.stop();
    this.writer.close();
    this.closed = true;
    await this.log.close();
    this.db.close();
  }
}

/** Opens (creating the folder and file if needed) the SQLite store at `path`; `:memory:` keeps nothing. */
export async function openSqliteStore(path: string, options?: SqliteStoreOptions): Promise<EventStore> {
  return new SqliteEventStore(path.startsWith('sqlite:') ? path.slice('sqlite:'.length) : path, options);
}
