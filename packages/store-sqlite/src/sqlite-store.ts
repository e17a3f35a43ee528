import { accessSync, closeSync, constants, existsSync, fdatasync, mkdirSync, openSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { deserialize, serialize } from 'node:v8';
import Database from 'better-sqlite3';
import {
  ANY_VERSION,
  CommitSignal,
  ForeignWrites,
  VersionConflict,
  type AppendResult,
  type CommitListener,
  type StopWatching,
  type EventStore,
  type StoreCapabilities,
  type Snapshot,
  type StoredEvent,
  type StreamAppend,
} from '@sdp/core/kernel';
import { SqliteHostRecords } from './host-records.ts';
import { AUTO_CHECKPOINT_PAGES, CHECKPOINT_EVERY, LogCheckpoint } from './log-checkpoint.ts';
import { prepareSchema, StoreFileError, UNINDEXED_TYPE } from './schema.ts';

/**
 * How often a watched store asks whether another process wrote the file: a live-stream subscriber on one
 * process hears what another ingested within this (plus its read), at the cost of one pragma, no table read.
 */
const FOREIGN_POLL_MS = 100;

/** At most this many write requests share one commit. */
const MAX_GROUP = 1000;

/** Events inserted by one statement at most (8 parameters each, far below SQLite's limit on parameters). */
const ROWS_PER_INSERT = 64;

type Row = [position: number, stream: string, version: number, id: string, type: string, data: string, time: number, schemaVersion: number];

interface Request {
  run: () => unknown;
  resolve: (value: never) => void;
  reject: (error: unknown) => void;
  /** Whether `run` writes nothing before it can throw a refusal (an append: every check comes first). */
  checksFirst: boolean;
}

/** Stream versions known beyond this many are forgotten (each is read again once, when next appended to). */
const MAX_KNOWN_VERSIONS = 100_000;

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
  private readonly db: Database.Database;
  private readonly commits = new CommitSignal();
  /** Another process' commits to the file, seen by `PRAGMA data_version` (no read of the table). */
  private readonly foreign: ForeignWrites;
  private foreignSeen: number | undefined;
  private queue: Request[] = [];
  private scheduled = false;
  private closed = false;
  private readonly sql;
  /** `readTypes` statements by how many types they name, negative when one is the unindexed type. */
  private readonly byTypes = new Map<number, Database.Statement>();
  private readonly hostRecords: SqliteHostRecords;
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
  /**
   * Each stream's version as committed, so an append checks its expected versions without a query. Only
   * while no other connection has written the file since (`PRAGMA data_version` says so at each commit).
   */
  private versions = new Map<string, number>();
  /** The versions the open transaction has written, merged into `versions` once it commits. */
  private written = new Map<string, number>();
  /**
   * The id of each stream's last event, for appends that name the event they expect (`expectedLastId`):
   * as committed, and as the open transaction has written. Known, merged and forgotten with `versions`
   * and `written`; a stream missing here is read once when an append names an id for it.
   */
  private lastIds = new Map<string, string>();
  private writtenIds = new Map<string, string>();
  private dataVersion: number | undefined;
  /** Set once the running request has written something (after that, its failure needs a rollback). */
  private wrote = false;
  /**
   * The open transaction's events, checked and numbered by their appends but not inserted yet: 8
   * parameters a row (position first). They go in together, a multi-row INSERT of up to
   * `ROWS_PER_INSERT` each, which costs about a quarter less per event than one statement each.
   */
  private pending: unknown[] = [];
  /** Multi-row INSERT statements by their number of rows, negative for those run under savepoints. */
  private readonly inserts = new Map<number, Database.Statement>();
  /**
   * The log's last position in the open transaction (its pending events included), so an append numbers
   * its events without a query. Known only while no other connection has written the file since, like
   * `versions`; positions are given explicitly, so what the answer says is what is stored.
   */
  private headPosition: number | undefined;
  /** The store's own checkpoints of the log (a file store's; see `LogCheckpoint`). */
  private readonly checkpoint: LogCheckpoint | undefined;
  private commitsSinceCheckpoint = 0;
  /** While a checkpoint runs (commits wait): the commit count and sync number after which it may copy. */
  private checkpointing: { upTo: number; afterSync: number; copied: boolean } | undefined;
  private checkpointEnded: (() => void) | undefined;
  private dbFd: number | undefined;

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
        // Checkpoints are the store's own, their syncs off the event loop too (LogCheckpoint).
        if (!inMemory) this.db.pragma(`wal_autocheckpoint = ${AUTO_CHECKPOINT_PAGES}`);
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
    this.checkpoint = inMemory ? undefined : new LogCheckpoint(db, path);
    this.sql = {
      begin: db.prepare('BEGIN IMMEDIATE'),
      commit: db.prepare('COMMIT'),
      rollback: db.prepare('ROLLBACK'),
      savepoint: db.prepare('SAVEPOINT request'),
      release: db.prepare('RELEASE request'),
      rollbackTo: db.prepare('ROLLBACK TO request'),
      streamVersion: db.prepare('SELECT coalesce(max(version), 0) FROM events WHERE stream = ?').pluck(),
      eventIdAt: db.prepare('SELECT id FROM events WHERE stream = ? AND version = ?').pluck(),
      dataVersion: db.prepare('PRAGMA data_version').pluck(),
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
    this.hostRecords = new SqliteHostRecords(db, (run) => this.write(run, false), (run) => this.read(run));
    this.capabilities = { kind: 'sqlite', reach: inMemory ? 'process' : 'machine', checksLastEventId: true, freshReads: true, hostRecords: this.hostRecords };
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
    const appended = this.write(() => this.appendNow(batch), true);
    // Only a watched store adds a reaction: the unwatched hot path stays one promise.
    if (this.commits.watched) appended.then((result) => this.commits.wrote(batch, result), () => {});
    return appended;
  }

  /**
   * One request, inside the shared transaction: every check first (expected versions, each event's data
   * as JSON), then its events numbered and queued for the group's inserts (`pending`), so a refused
   * request has queued nothing and needs no rollback.
   */
  private appendNow(batch: StreamAppend[]): AppendResult {
    const actual: number[] = [];
    let data: string[] | undefined;
    for (let i = 0; i < batch.length; i++) {
      const { stream, expectedVersion, events, expectedLastId } = batch[i]!;
      for (let j = 0; j < i; j++) if (batch[j]!.stream === stream) throw new Error(`stream ${stream} appears twice in one append`);
      const version = this.versionOf(stream);
      if (expectedVersion !== ANY_VERSION && expectedVersion !== version) throw new VersionConflict(stream, expectedVersion, version);
      // Right version, another writer's event at it: what the writer decided on never became durable.
      if (expectedLastId !== undefined && version > 0 && this.lastIdOf(stream, version) !== expectedLastId) throw new VersionConflict(stream, expectedVersion, version);
      actual.push(version);
      for (const e of events) (data ??= []).push(JSON.stringify(e.data ?? null));
    }
    const versions: number[] = [];
    let position = (this.headPosition ??= this.sql.head.get() as number);
    const pending = this.pending;
    let k = 0;
    for (let i = 0; i < batch.length; i++) {
      const { stream, events } = batch[i]!;
      let version = actual[i]!;
      for (const e of events) pending.push(++position, stream, ++version, e.id, e.type, data![k++], e.time, e.schemaVersion ?? 1);
      versions.push(version);
      if (events.length > 0) {
        this.written.set(stream, version);
        this.writtenIds.set(stream, events[events.length - 1]!.id);
      }
    }
    this.headPosition = position;
    return { versions, lastPosition: position };
  }

  /**
   * Inserts the pending events, in statements of up to `ROWS_PER_INSERT` rows. A group's (`wholeGroup`)
   * are inserted `OR ROLLBACK`: a statement of many rows that may fail halfway otherwise keeps a journal
   * of every page it changes, to take back its own rows alone (SQLite's statement journal, spilled to a
   * temporary file beyond 64 KB: with 50 accounts it doubled the CPU of an insert). Failing, the group
   * is taken back whole and runs again under savepoints, where each request's rows are inserted
   * `OR ABORT` (SQLite's default), few enough to need no such journal.
   */
  private insertPending(wholeGroup: boolean): void {
    const pending = this.pending;
    if (pending.length === 0) return;
    this.pending = [];
    this.wrote = true;
    const rows = pending.length / 8;
    for (let from = 0; from < rows; from += ROWS_PER_INSERT) {
      const n = Math.min(ROWS_PER_INSERT, rows - from);
      this.insertOf(n, wholeGroup).run(n === rows ? pending : pending.slice(from * 8, (from + n) * 8));
    }
  }

  private insertOf(rows: number, wholeGroup: boolean): Database.Statement {
    const key = wholeGroup ? rows : -rows;
    let statement = this.inserts.get(key);
    if (!statement) {
      const values = Array.from({ length: rows }, () => '(?, ?, ?, ?, ?, ?, ?, ?)').join(', ');
      const verb = wholeGroup ? 'INSERT OR ROLLBACK' : 'INSERT';
      statement = this.db.prepare(`${verb} INTO events (position, stream, version, id, type, data, time, schema_version) VALUES ${values}`);
      this.inserts.set(key, statement);
    }
    return statement;
  }

  /** What this connection knows of the file is no longer sure (another writer, a rollback, a clear). */
  private forget(): void {
    this.written.clear();
    this.versions.clear();
    this.writtenIds.clear();
    this.lastIds.clear();
    this.pending = [];
    this.headPosition = undefined;
  }

  /** The id of the stream's last event (at `version`, its version in the open transaction). */
  private lastIdOf(stream: string, version: number): string | undefined {
    let id = this.writtenIds.get(stream) ?? this.lastIds.get(stream);
    if (id === undefined) {
      id = this.sql.eventIdAt.get(stream, version) as string | undefined;
      if (id !== undefined) this.lastIds.set(stream, id);
    }
    return id;
  }

  /** The stream's version in the open transaction: what it wrote, else what is committed. */
  private versionOf(stream: string): number {
    let version = this.written.get(stream) ?? this.versions.get(stream);
    if (version === undefined) {
      version = this.sql.streamVersion.get(stream) as number;
      this.versions.set(stream, version);
    }
    return version;
  }

  async readStream(stream: string, afterVersion = 0): Promise<StoredEvent[]> {
    return this.durableRead(() => (this.sql.readStream.all(stream, afterVersion) as Row[]).map(toEvent));
  }

  async readAll(afterPosition = 0, limit = Number.MAX_SAFE_INTEGER): Promise<StoredEvent[]> {
    return this.durableRead(() => (this.sql.readAll.all(afterPosition, limit) as Row[]).map(toEvent));
  }

  async readTypes(types: readonly string[], afterPosition = 0, limit = Number.MAX_SAFE_INTEGER): Promise<StoredEvent[]> {
    if (types.length === 0) return [];
    const statement = this.typesStatement(types.length, !types.includes(UNINDEXED_TYPE));
    return this.durableRead(() => (statement.all(...types, afterPosition, limit) as Row[]).map(toEvent));
  }

  private typesStatement(n: number, indexed: boolean): Database.Statement {
    const key = indexed ? n : -n;
    let statement = this.byTypes.get(key);
    if (!statement) {
      const marks = Array.from({ length: n }, () => '?').join(', ');
      // The type index is partial: SQLite seeks in it only when the query repeats its condition.
      const condition = indexed ? ` AND type <> '${UNINDEXED_TYPE}'` : '';
      statement = this.db
        .prepare(`SELECT position, stream, version, id, type, data, time, schema_version FROM events WHERE type IN (${marks})${condition} AND position > ? ORDER BY position LIMIT ?`)
        .raw();
      this.byTypes.set(key, statement);
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
    return this.write(() => {
      const statement = this.db.prepare(
        `DELETE FROM events WHERE type IN (${marks}) AND type <> '${UNINDEXED_TYPE}' AND position <= ? AND substr(stream, 1, ?) = ?
           AND version < (SELECT max(last.version) FROM events AS last WHERE last.stream = events.stream)`,
      );
      const { changes } = statement.run(...named, throughPosition, streamPrefix.length, streamPrefix);
      if (changes > 0) this.forget();
      return changes;
    }, false);
  }

  clear(): Promise<void> {
    return this.write(() => {
      this.sql.clearEvents.run();
      this.sql.clearSnapshots.run();
      this.hostRecords.clear();
      this.forget();
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
    while (this.queue.length > 0) this.flush(true);
    this.closed = true;
    // Every commit's answer is given before the file closes.
    await this.synced(this.commitsMade).catch(() => {});
    if (this.checkpointing) await new Promise<void>((resolve) => (this.checkpointEnded = resolve));
    if (this.logFd !== undefined) closeSync(this.logFd);
    if (this.dbFd !== undefined) closeSync(this.dbFd);
    this.checkpoint?.close();
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
    const sync = ++this.stats.syncs;
    this.syncLog(fd, (error) => {
      this.syncing = false;
      if (error) {
        this.failSyncs(new StoreFileError(this.path, `write not acknowledged: syncing its log failed (${error.message}); the store takes no more writes until it is opened again`, { cause: error }));
        if (this.scheduled) this.flush();
        return;
      }
      this.commitsSynced = upTo;
      const ready = this.waiting.filter((w) => w.upTo <= upTo);
      this.waiting = this.waiting.filter((w) => w.upTo > upTo);
      for (const w of ready) w.settle(null);
      const checkpoint = this.checkpointing;
      if (checkpoint && sync > checkpoint.afterSync && upTo >= checkpoint.upTo) return this.copyLog();
      // The writes that arrived during this sync commit together, with those that arrive in this turn of
      // the event loop (requests read from other sockets in its poll phase): at its end, not at once.
      if (this.scheduled) setImmediate(() => this.flush());
      this.startSync();
    });
  }

  /** Pins the log for a checkpoint (see `LogCheckpoint`); commits wait until it is done. */
  private beginCheckpoint(): void {
    try {
      this.checkpoint!.pin();
    } catch {
      // Not now (the file busy): the next commit tries again; SQLite's own checkpoint is the backstop.
      return;
    }
    this.commitsSinceCheckpoint = 0;
    this.checkpointing = { upTo: this.commitsMade, afterSync: this.stats.syncs, copied: false };
  }

  /** The log is synced up to the pin: copy it into the database file, sync that, then let commits go on. */
  private copyLog(): void {
    try {
      this.dbFd ??= openSync(this.path, 'r');
    } catch {
      // Nothing copied: the log keeps every frame, and the next checkpoint tries again.
      return this.endCheckpoint();
    }
    this.checkpointing!.copied = true;
    try {
      this.checkpoint!.copy();
    } catch {
      // Whatever part was copied is made durable below before the pin ends, as a whole copy is.
    }
    this.syncLog(this.dbFd, (error) => {
      if (error) {
        this.failSyncs(new StoreFileError(this.path, `write not acknowledged: syncing the database file after a checkpoint failed (${error.message}); the store takes no more writes until it is opened again`, { cause: error }));
        if (this.scheduled) this.flush();
        return;
      }
      this.endCheckpoint();
    });
  }

  private endCheckpoint(): void {
    this.checkpoint!.release();
    this.checkpointing = undefined;
    this.checkpointEnded?.();
    if (this.scheduled) this.flush();
    this.startSync();
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
    // A checkpoint under way ends: before its copy the pin goes (nothing was copied); after it the pin
    // stays, since the log must keep every frame the database file may not hold.
    if (this.checkpointing) {
      if (!this.checkpointing.copied) this.checkpoint!.release();
      this.checkpointing = undefined;
      this.checkpointEnded?.();
    }
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
  private write<T>(run: () => T, checksFirst: boolean): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      if (this.closed) return reject(new StoreFileError(this.path, 'the store is closed'));
      if (this.syncFailure) return reject(this.syncFailure);
      this.queue.push({ run, resolve: resolve as (value: never) => void, reject, checksFirst });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  /**
   * Commits the queued writes. While a sync runs, they wait for it to end instead (`force`: not even
   * then, when closing): a commit made now would be acknowledged only after the next sync anyway, and
   * one commit of everything that arrived meanwhile writes each changed page of the log once, not once
   * per turn of the event loop.
   */
  private flush(force = false): void {
    if ((this.syncing || this.checkpointing) && !force) return;
    this.scheduled = false;
    if (this.queue.length === 0 || this.closed) return;
    if (this.syncFailure) {
      for (const request of this.queue.splice(0)) request.reject(this.syncFailure);
      return;
    }
    // A bounded group keeps one commit from holding the event loop for long; the rest go next turn.
    const batch = this.queue.splice(0, MAX_GROUP);
    if (this.queue.length > 0) {
      this.scheduled = true;
      setImmediate(() => this.flush());
    }
    this.stats.commits++;
    this.stats.requests += batch.length;
    let outcomes: { ok: boolean; value: unknown }[];
    try {
      // Most groups commit without a savepoint per request: a refused append has written nothing. Only
      // when a request fails after writing (the disk, a snapshot) is the group run again, each request
      // under its own savepoint, so that failure takes back its own writes and nothing else.
      outcomes = this.runGroup(batch, false) ?? this.runGroup(batch, true)!;
      this.sql.commit.run();
    } catch (error) {
      this.forget();
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
    for (const [stream, version] of this.written) this.versions.set(stream, version);
    for (const [stream, id] of this.writtenIds) this.lastIds.set(stream, id);
    this.written.clear();
    this.writtenIds.clear();
    const answer = (syncError: Error | null) => {
      batch.forEach((request, i) => {
        const o = outcomes[i]!;
        if (syncError) request.reject(syncError);
        else if (o.ok) request.resolve(o.value as never);
        else request.reject(o.value);
      });
      if (!syncError) this.commits.notify();
    };
    if (this.inMemory) return answer(null);
    this.commitsMade++;
    this.waiting.push({ upTo: this.commitsMade, settle: answer });
    if (++this.commitsSinceCheckpoint >= CHECKPOINT_EVERY && !this.checkpointing && this.checkpoint) this.beginCheckpoint();
    this.startSync();
  }

  /**
   * Runs the group's requests in a new transaction, each request's outcome in order. Without savepoints,
   * a request that fails after writing rolls the whole transaction back and answers `undefined` (run the
   * group again with them).
   */
  private runGroup(batch: Request[], savepoints: boolean): { ok: boolean; value: unknown }[] | undefined {
    this.sql.begin.run();
    // Another connection (a second process on the file) wrote since this one last did: its versions and
    // the log's head are unknown.
    const dataVersion = this.sql.dataVersion.get() as number;
    if (dataVersion !== this.dataVersion) this.forget();
    else if (this.versions.size > MAX_KNOWN_VERSIONS) {
      this.versions.clear();
      this.lastIds.clear();
    }
    this.dataVersion = dataVersion;
    const outcomes: { ok: boolean; value: unknown }[] = [];
    for (const request of batch) {
      // A write of another kind (a snapshot, a clear) comes after the events queued before it.
      if (!savepoints && !request.checksFirst && this.pending.length > 0 && !this.tryInsertPending()) return undefined;
      if (savepoints) this.sql.savepoint.run();
      this.wrote = !request.checksFirst;
      const before = savepoints ? { written: new Map(this.written), writtenIds: new Map(this.writtenIds), head: this.headPosition } : undefined;
      try {
        const value = request.run();
        // Under savepoints each request's events go in at once, so a failure is its own.
        if (savepoints) {
          this.insertPending(false);
          this.sql.release.run();
        }
        outcomes.push({ ok: true, value });
      } catch (error) {
        if (savepoints) {
          this.sql.rollbackTo.run();
          this.sql.release.run();
          this.written = before!.written;
          this.writtenIds = before!.writtenIds;
          this.headPosition = before!.head;
          this.pending = [];
        } else if (this.wrote) {
          this.abandon();
          return undefined;
        }
        outcomes.push({ ok: false, value: error instanceof VersionConflict ? error : this.explain(error, 'write refused') });
      }
    }
    return savepoints || this.tryInsertPending() ? outcomes : undefined;
  }

  /** Inserts the pending events; when that fails (whose event failed is not known), abandons the transaction. */
  private tryInsertPending(): boolean {
    try {
      this.insertPending(true);
      return true;
    } catch {
      this.abandon();
      return false;
    }
  }

  /** Rolls the group's transaction back (unless `OR ROLLBACK` did): it runs again, each request under its own savepoint. */
  private abandon(): void {
    if (this.db.inTransaction) this.sql.rollback.run();
    this.forget();
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
