import { accessSync, closeSync, constants, existsSync, fdatasync, mkdirSync, openSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { deserialize, serialize } from 'node:v8';
import Database from 'better-sqlite3';
import {
  ANY_VERSION,
  VersionConflict,
  type AppendResult,
  type EventStore,
  type Snapshot,
  type StoredEvent,
  type StreamAppend,
} from '@sdp/core';
import { prepareSchema, StoreFileError } from './schema.ts';

/** At most this many write requests share one commit. */
const MAX_GROUP = 1000;

type Row = [position: number, stream: string, version: number, id: string, type: string, data: string, time: number, schemaVersion: number];

interface Request {
  run: () => unknown;
  resolve: (value: never) => void;
  reject: (error: unknown) => void;
}

export interface SqliteStoreOptions {
  /** How long a writer waits for another process holding the file's write lock (ms). */
  busyTimeoutMs?: number;
  /** Makes the write-ahead log durable (`fs.fdatasync` on its descriptor); tests hold it to watch the order. */
  syncLog?: (fd: number, done: (error: Error | null) => void) => void;
}

/**
 * The embedded store. Every acknowledged write is on disk: the write-ahead log is synced after each
 * commit, and a write is acknowledged only once the sync that covers it has finished. Group commit keeps
 * that cheap: every write requested before the pending commit runs (everything arriving in the same turn
 * of the event loop) shares one transaction, each request under its own SAVEPOINT so one request's
 * conflict rolls back only that request.
 *
 * The sync runs off the event loop: SQLite commits with `synchronous=NORMAL` (which still syncs around
 * checkpoints and when the log is reused, so the file is never damaged), and the store then syncs the
 * log with `fdatasync` in Node's thread pool — the guarantee of `synchronous=FULL`, whose sync inside
 * COMMIT held the event loop for the whole flush. While one sync runs, the next commits are made and
 * wait for the next one; reads wait for the syncs of the commits made before them, so nothing is read
 * that a power cut could still take back.
 */
export class SqliteEventStore implements EventStore {
  readonly path: string;
  private readonly db: Database.Database;
  private queue: Request[] = [];
  private scheduled = false;
  private closed = false;
  private readonly sql;
  /** `readTypes` statements by how many types they name. */
  private readonly byTypes = new Map<number, Database.Statement>();
  readonly freshReads = true;
  /** Group commits run and write requests they carried: `requests / commits` is the sharing achieved. */
  readonly stats = { commits: 0, requests: 0, syncs: 0 };
  private readonly inMemory: boolean;
  private readonly syncLog: (fd: number, done: (error: Error | null) => void) => void;
  /** The write-ahead log's descriptor, opened after the first commit creates the log. */
  private logFd: number | undefined;
  /** Commits made, and the number of them a finished sync covers. */
  private commitsMade = 0;
  private commitsSynced = 0;
  private syncing = false;
  private syncFailure: StoreFileError | undefined;
  /** Answers waiting for a sync: `upTo` is the commit count they need covered. */
  private waiting: { upTo: number; settle: (error: Error | null) => void }[] = [];

  constructor(path: string, options: SqliteStoreOptions = {}) {
    this.path = path;
    const inMemory = path === ':memory:' || path === '';
    this.inMemory = inMemory;
    this.syncLog = options.syncLog ?? ((fd, done) => fdatasync(fd, done));
    if (!inMemory) {
      try {
        mkdirSync(dirname(resolve(path)), { recursive: true });
      } catch (error) {
        throw new StoreFileError(path, `cannot create its folder (${(error as Error).message})`, { cause: error });
      }
    }
    // SQLite quietly opens a file it cannot write read-only, and the first write would fail later.
    const denied = inMemory ? undefined : writeDenied(path);
    if (denied) throw new StoreFileError(path, `is not writable (${denied}); check the file and folder permissions`);
    try {
      this.db = new Database(path);
    } catch (error) {
      throw new StoreFileError(path, `cannot be opened as a SQLite database (${(error as Error).message})`, { cause: error });
    }
    try {
      this.db.pragma(`busy_timeout = ${options.busyTimeoutMs ?? 5000}`);
      prepareSchema(this.db, path, undefined, () => {
        if (!inMemory) {
          const mode = this.db.pragma('journal_mode = WAL', { simple: true });
          if (mode !== 'wal') throw new StoreFileError(path, `cannot switch to WAL journaling (got ${String(mode)})`);
        }
        // The log's sync after each commit is the store's own (see above), off the event loop.
        this.db.pragma(inMemory ? 'synchronous = FULL' : 'synchronous = NORMAL');
      });
      // A cheap probe of the log's tail and its stream index, so a damaged file is refused at open
      // rather than at the first call (a full integrity check would cost a scan of the whole file).
      this.db.prepare('SELECT * FROM events ORDER BY position DESC LIMIT 1').get();
      this.db.prepare(`SELECT max(version) FROM events WHERE stream = ''`).get();
    } catch (error) {
      this.db.close();
      if (error instanceof StoreFileError) throw error;
      const code = (error as { code?: string }).code ?? '';
      if (code.startsWith('SQLITE_READONLY') || (code.startsWith('SQLITE_CANTOPEN') && !canWrite(path))) {
        throw new StoreFileError(path, `is not writable (${(error as Error).message}); check the file and folder permissions`, { cause: error });
      }
      if (code.startsWith('SQLITE_CORRUPT') || code === 'SQLITE_NOTADB') {
        throw new StoreFileError(path, `is damaged (${(error as Error).message}); the file was left as it is`, { cause: error });
      }
      throw new StoreFileError(path, `cannot be prepared as an event store (${(error as Error).message})`, { cause: error });
    }
    const db = this.db;
    this.sql = {
      begin: db.prepare('BEGIN IMMEDIATE'),
      commit: db.prepare('COMMIT'),
      rollback: db.prepare('ROLLBACK'),
      savepoint: db.prepare('SAVEPOINT request'),
      release: db.prepare('RELEASE request'),
      rollbackTo: db.prepare('ROLLBACK TO request'),
      streamVersion: db.prepare('SELECT coalesce(max(version), 0) FROM events WHERE stream = ?').pluck(),
      insert: db.prepare('INSERT INTO events (stream, version, id, type, data, time, schema_version) VALUES (?, ?, ?, ?, ?, ?, ?)'),
      head: db.prepare('SELECT coalesce(max(position), 0) FROM events').pluck(),
      readStream: db
        .prepare('SELECT position, stream, version, id, type, data, time, schema_version FROM events WHERE stream = ? AND version > ? ORDER BY version')
        .raw(),
      readAll: db.prepare('SELECT position, stream, version, id, type, data, time, schema_version FROM events WHERE position > ? ORDER BY position LIMIT ?').raw(),
      readSnapshot: db.prepare('SELECT version, state FROM snapshots WHERE stream = ? AND kind = ?'),
      writeSnapshot: db.prepare(
        `INSERT INTO snapshots (stream, kind, version, state) VALUES (?, ?, ?, ?)
         ON CONFLICT (stream, kind) DO UPDATE SET version = excluded.version, state = excluded.state
         WHERE excluded.version >= snapshots.version`,
      ),
      clearEvents: db.prepare('DELETE FROM events'),
      clearSnapshots: db.prepare('DELETE FROM snapshots'),
    };
  }

  append(batch: StreamAppend[]): Promise<AppendResult> {
    return this.write(() => this.appendNow(batch));
  }

  /** One request, inside the shared transaction: check every expected version, then write. */
  private appendNow(batch: StreamAppend[]): AppendResult {
    const seen = new Set<string>();
    const actual: number[] = [];
    for (const { stream, expectedVersion } of batch) {
      if (seen.has(stream)) throw new Error(`stream ${stream} appears twice in one append`);
      seen.add(stream);
      const version = this.sql.streamVersion.get(stream) as number;
      if (expectedVersion !== ANY_VERSION && expectedVersion !== version) throw new VersionConflict(stream, expectedVersion, version);
      actual.push(version);
    }
    const versions: number[] = [];
    let lastPosition = 0;
    batch.forEach(({ stream, events }, i) => {
      let version = actual[i]!;
      for (const e of events) {
        const info = this.sql.insert.run(stream, ++version, e.id, e.type, JSON.stringify(e.data ?? null), e.time, e.schemaVersion ?? 1);
        lastPosition = Number(info.lastInsertRowid);
      }
      versions.push(version);
    });
    return { versions, lastPosition: lastPosition || (this.sql.head.get() as number) };
  }

  async readStream(stream: string, afterVersion = 0): Promise<StoredEvent[]> {
    return this.durableRead(() => (this.sql.readStream.all(stream, afterVersion) as Row[]).map(toEvent));
  }

  async readAll(afterPosition = 0, limit = Number.MAX_SAFE_INTEGER): Promise<StoredEvent[]> {
    return this.durableRead(() => (this.sql.readAll.all(afterPosition, limit) as Row[]).map(toEvent));
  }

  async readTypes(types: readonly string[], afterPosition = 0, limit = Number.MAX_SAFE_INTEGER): Promise<StoredEvent[]> {
    if (types.length === 0) return [];
    return this.read(() => (this.typesStatement(types.length).all(...types, afterPosition, limit) as Row[]).map(toEvent));
  }

  private typesStatement(n: number): Database.Statement {
    let statement = this.byTypes.get(n);
    if (!statement) {
      const marks = Array.from({ length: n }, () => '?').join(', ');
      statement = this.db
        .prepare(`SELECT position, stream, version, id, type, data, time, schema_version FROM events WHERE type IN (${marks}) AND position > ? ORDER BY position LIMIT ?`)
        .raw();
      this.byTypes.set(n, statement);
    }
    return statement;
  }

  async head(): Promise<number> {
    return this.durableRead(() => this.sql.head.get() as number);
  }

  async readSnapshot(stream: string, kind: string): Promise<Snapshot | undefined> {
    const row = await this.durableRead(() => this.sql.readSnapshot.get(stream, kind) as { version: number; state: Buffer } | undefined);
    return row ? { stream, kind, version: row.version, state: deserialize(row.state) } : undefined;
  }

  /** A read answered once every commit it could have seen is synced: nothing read can be taken back by a power cut. */
  private async durableRead<T>(fn: () => T): Promise<T> {
    const seen = this.commitsMade;
    const value = this.read(fn);
    if (this.commitsSynced < seen) await this.synced(seen);
    return value;
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
    return this.write(() => {
      this.sql.writeSnapshot.run(snapshot.stream, snapshot.kind, snapshot.version, state);
    });
  }

  clear(): Promise<void> {
    return this.write(() => {
      this.sql.clearEvents.run();
      this.sql.clearSnapshots.run();
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    while (this.queue.length > 0) this.flush();
    this.closed = true;
    // Every commit's answer is given before the file closes.
    await this.synced(this.commitsMade).catch(() => {});
    if (this.logFd !== undefined) closeSync(this.logFd);
    this.db.close();
  }

  /** Resolves once a sync covers the first `upTo` commits; rejects when the log could not be synced. */
  private synced(upTo: number): Promise<void> {
    if (this.syncFailure) return Promise.reject(this.syncFailure);
    if (this.commitsSynced >= upTo) return Promise.resolve();
    return new Promise((resolve, reject) => this.waiting.push({ upTo, settle: (error) => (error ? reject(error) : resolve()) }));
  }

  /** Starts a sync of the log covering every commit made so far, unless one is running (the next follows it). */
  private startSync(): void {
    if (this.syncing || this.syncFailure || this.commitsSynced >= this.commitsMade) return;
    const upTo = this.commitsMade;
    let fd: number;
    try {
      fd = this.logFd ??= openSync(`${this.path}-wal`, 'r');
    } catch (error) {
      this.failSyncs(new StoreFileError(this.path, `write not acknowledged: its log cannot be opened to sync it (${(error as Error).message})`, { cause: error }));
      return;
    }
    this.syncing = true;
    this.stats.syncs++;
    this.syncLog(fd, (error) => {
      this.syncing = false;
      if (error) return this.failSyncs(new StoreFileError(this.path, `write not acknowledged: syncing its log failed (${error.message}); the store takes no more writes until it is opened again`, { cause: error }));
      this.commitsSynced = upTo;
      const ready = this.waiting.filter((w) => w.upTo <= upTo);
      this.waiting = this.waiting.filter((w) => w.upTo > upTo);
      for (const w of ready) w.settle(null);
      this.startSync();
    });
  }

  /**
   * After a failed sync nothing more is acknowledged: what the kernel failed to write may be gone, and a
   * later sync's success would not say otherwise. Every waiting answer and every later call gets the error.
   */
  private failSyncs(error: StoreFileError): void {
    this.syncFailure = error;
    const waiting = this.waiting;
    this.waiting = [];
    for (const w of waiting) w.settle(error);
  }

  /** A damaged file is reported as such, naming it; nothing tries to repair or overwrite it. */
  private read<T>(fn: () => T): T {
    if (this.closed) throw new StoreFileError(this.path, 'the store is closed');
    try {
      return fn();
    } catch (error) {
      throw this.explain(error, 'read failed');
    }
  }

  private explain(error: unknown, what: string): Error {
    const code = (error as { code?: string }).code ?? '';
    if (code.startsWith('SQLITE_CORRUPT') || code === 'SQLITE_NOTADB') {
      return new StoreFileError(this.path, `is damaged: ${what} (${(error as Error).message}); the file was left as it is`, { cause: error });
    }
    if (code.startsWith('SQLITE_')) return new StoreFileError(this.path, `${what} (${(error as Error).message})`, { cause: error });
    return error as Error;
  }

  /** Queues a write for the next group commit, which runs once the current turn of the event loop ends. */
  private write<T>(run: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      if (this.closed) return reject(new StoreFileError(this.path, 'the store is closed'));
      if (this.syncFailure) return reject(this.syncFailure);
      this.queue.push({ run, resolve: resolve as (value: never) => void, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  private flush(): void {
    this.scheduled = false;
    if (this.queue.length === 0 || this.closed) return;
    // A bounded group keeps one commit from holding the event loop for long; the rest go next turn.
    const batch = this.queue.splice(0, MAX_GROUP);
    if (this.queue.length > 0) {
      this.scheduled = true;
      setImmediate(() => this.flush());
    }
    const outcomes: { ok: boolean; value: unknown }[] = [];
    this.stats.commits++;
    this.stats.requests += batch.length;
    try {
      this.sql.begin.run();
      for (const request of batch) {
        this.sql.savepoint.run();
        try {
          outcomes.push({ ok: true, value: request.run() });
          this.sql.release.run();
        } catch (error) {
          this.sql.rollbackTo.run();
          this.sql.release.run();
          outcomes.push({ ok: false, value: error instanceof VersionConflict ? error : this.explain(error, 'write refused') });
        }
      }
      this.sql.commit.run();
    } catch (error) {
      if (this.db.inTransaction) {
        try {
          this.sql.rollback.run();
        } catch {
          // The connection is unusable; every request below is refused either way.
        }
      }
      const failure = this.explain(error, 'write failed, nothing of it was stored');
      const reported = failure instanceof StoreFileError ? failure : new StoreFileError(this.path, `write failed, nothing of it was stored (${(error as Error).message})`, { cause: error });
      for (const request of batch) request.reject(reported);
      return;
    }
    const answer = (syncError: Error | null) =>
      batch.forEach((request, i) => {
        const o = outcomes[i]!;
        if (syncError) request.reject(syncError);
        else if (o.ok) request.resolve(o.value as never);
        else request.reject(o.value);
      });
    if (this.inMemory) return answer(null);
    this.commitsMade++;
    this.waiting.push({ upTo: this.commitsMade, settle: answer });
    this.startSync();
  }
}

function toEvent(r: Row): StoredEvent {
  return { position: r[0], stream: r[1], version: r[2], id: r[3], type: r[4], data: JSON.parse(r[5]), time: r[6], schemaVersion: r[7] };
}

/** Opens (creating the folder and file if needed) the SQLite store at `path`; `:memory:` keeps nothing. */
export async function openSqliteStore(path: string, options?: SqliteStoreOptions): Promise<EventStore> {
  return new SqliteEventStore(path.startsWith('sqlite:') ? path.slice('sqlite:'.length) : path, options);
}

/** Why an existing file cannot be opened for writing by this process, or undefined when it can (or is absent). */
function writeDenied(path: string): string | undefined {
  try {
    closeSync(openSync(path, 'r+'));
    return undefined;
  } catch (error) {
    const code = (error as { code?: string }).code;
    return code === 'EACCES' || code === 'EPERM' || code === 'EROFS' ? (error as Error).message : undefined;
  }
}

/** Whether the file (or, when it does not exist yet, its folder) may be written by this process. */
function canWrite(path: string): boolean {
  try {
    accessSync(existsSync(path) ? path : dirname(resolve(path)), constants.W_OK);
    return true;
  } catch {
    return false;
  }
}
