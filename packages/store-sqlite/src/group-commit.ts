import type Database from 'better-sqlite3';
import { ANY_VERSION, VersionConflict, type AppendResult, type StreamAppend } from '@sdp/core/kernel';
import type { LogSync } from './log-sync.ts';
import { explainFileError } from './open-file.ts';
import { StoreFileError } from './schema.ts';
import { StreamHeads } from './stream-heads.ts';

/** At most this many write requests share one commit. */
const MAX_GROUP = 1000;

/** Events inserted by one statement at most (8 parameters each, far below SQLite's limit on parameters). */
const ROWS_PER_INSERT = 64;

interface Request {
  run: () => unknown;
  resolve: (value: never) => void;
  reject: (error: unknown) => void;
  /** Whether `run` writes nothing before it can throw a refusal (an append: every check comes first). */
  checksFirst: boolean;
}

type Outcome = { ok: boolean; value: unknown };

/**
 * The file's one writer in this process, and its group commit: the writes requested while a sync runs
 * (or, with none running, in one turn of the event loop) share one transaction, committed as soon as the
 * sync ends, and each is answered once the sync that covers its commit has finished (`LogSync`). Each
 * append checks everything before it writes, so one refused append (a version conflict) writes nothing
 * and the others commit. Only when a request fails after writing is the group run again with a SAVEPOINT
 * per request.
 */
export class GroupCommit {
  readonly sql: {
    begin: Database.Statement;
    commit: Database.Statement;
    rollback: Database.Statement;
    savepoint: Database.Statement;
    release: Database.Statement;
    rollbackTo: Database.Statement;
  };
  private readonly heads: StreamHeads;
  private queue: Request[] = [];
  private scheduled = false;
  private closed = false;
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
  /** The durability of commits; set once (`syncedBy`), before the first write. */
  private log!: LogSync;

  constructor(
    private readonly db: Database.Database,
    private readonly path: string,
    /** A database in memory answers at commit: there is nothing to sync. */
    private readonly inMemory: boolean,
    private readonly stats: { commits: number; requests: number },
    /** Told after each commit whose answers were given (the commit observer's own notice). */
    private readonly onCommitted: () => void,
  ) {
    this.sql = {
      begin: db.prepare('BEGIN IMMEDIATE'),
      commit: db.prepare('COMMIT'),
      rollback: db.prepare('ROLLBACK'),
      savepoint: db.prepare('SAVEPOINT request'),
      release: db.prepare('RELEASE request'),
      rollbackTo: db.prepare('ROLLBACK TO request'),
    };
    this.heads = new StreamHeads({
      streamVersion: db.prepare('SELECT coalesce(max(version), 0) FROM events WHERE stream = ?').pluck(),
      eventIdAt: db.prepare('SELECT id FROM events WHERE stream = ? AND version = ?').pluck(),
      head: db.prepare('SELECT coalesce(max(position), 0) FROM events').pluck(),
      dataVersion: db.prepare('PRAGMA data_version').pluck(),
    });
  }

  /** The log's syncs this writer's commits wait for. */
  syncedBy(log: LogSync): void {
    this.log = log;
  }

  /** Appends `batch`: checked and numbered in the next group's transaction, answered once durable. */
  append(batch: StreamAppend[]): Promise<AppendResult> {
    return this.write(() => this.appendNow(batch), true);
  }

  /**
   * Queues a write for the next group commit, which runs once the current turn of the event loop ends.
   * `checksFirst`: `run` writes nothing before it can throw a refusal (else a refusal rolls the group back).
   */
  write<T>(run: () => T, checksFirst: boolean): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      if (this.closed) return reject(new StoreFileError(this.path, 'the store is closed'));
      if (this.log.failed) return reject(this.log.failed);
      this.queue.push({ run, resolve: resolve as (value: never) => void, reject, checksFirst });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  /** The log's syncs let commits go on: at once, or at the end of this turn (`soon`), if any wait. */
  resume(soon: boolean): void {
    if (!this.scheduled) return;
    if (soon) setImmediate(() => this.flush());
    else this.flush();
  }

  /** Commits what is queued, whatever runs, and takes no more writes. */
  close(): void {
    while (this.queue.length > 0) this.flush(true);
    this.closed = true;
  }

  /** What this writer knows of the file is no longer sure (another writer, a rollback, a clear). */
  forget(): void {
    this.heads.forget();
    this.pending = [];
  }

  /**
   * One request, inside the shared transaction: every check first (expected versions, each event's data
   * as JSON), then its events numbered and queued for the group's inserts (`pending`), so a refused
   * request has queued nothing and needs no rollback.
   */
  private appendNow(batch: StreamAppend[]): AppendResult {
    const heads = this.heads;
    // Sized up front: an empty array's first push allocates room for sixteen, on every append.
    const actual: number[] = new Array(batch.length);
    let data: string[] | undefined;
    for (let i = 0; i < batch.length; i++) {
      const { stream, expectedVersion, events, expectedLastId } = batch[i]!;
      for (let j = 0; j < i; j++) if (batch[j]!.stream === stream) throw new Error(`stream ${stream} appears twice in one append`);
      const version = heads.versionOf(stream);
      if (expectedVersion !== ANY_VERSION && expectedVersion !== version) throw new VersionConflict(stream, expectedVersion, version);
      // Right version, another writer's event at it: what the writer decided on never became durable.
      if (expectedLastId !== undefined && version > 0 && heads.lastIdOf(stream, version) !== expectedLastId) throw new VersionConflict(stream, expectedVersion, version);
      actual[i] = version;
      for (const e of events) (data ??= []).push(JSON.stringify(e.data ?? null));
    }
    const versions: number[] = new Array(batch.length);
    let position = heads.head();
    const pending = this.pending;
    let k = 0;
    for (let i = 0; i < batch.length; i++) {
      const { stream, events } = batch[i]!;
      let version = actual[i]!;
      for (const e of events) pending.push(++position, stream, ++version, e.id, e.type, data![k++], e.time, e.schemaVersion ?? 1);
      versions[i] = version;
      if (events.length > 0) heads.wrote(stream, version, events[events.length - 1]!.id);
    }
    heads.movedHead(position);
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

  /**
   * Commits the queued writes. While a sync runs, they wait for it to end instead (`force`: not even
   * then, when closing): a commit made now would be acknowledged only after the next sync anyway, and
   * one commit of everything that arrived meanwhile writes each changed page of the log once, not once
   * per turn of the event loop.
   */
  private flush(force = false): void {
    if (this.log.busy && !force) return;
    this.scheduled = false;
    if (this.queue.length === 0 || this.closed) return;
    const failed = this.log.failed;
    if (failed) {
      for (const request of this.queue.splice(0)) request.reject(failed);
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
    let outcomes: Outcome[];
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
      const failure = explainFileError(this.path, error, 'write failed, nothing of it was stored');
      const reported = failure instanceof StoreFileError ? failure : new StoreFileError(this.path, `write failed, nothing of it was stored (${(error as Error).message})`, { cause: error });
      for (const request of batch) request.reject(reported);
      return;
    }
    this.heads.committed();
    const answer = (syncError: Error | null) => {
      batch.forEach((request, i) => {
        const o = outcomes[i]!;
        if (syncError) request.reject(syncError);
        else if (o.ok) request.resolve(o.value as never);
        else request.reject(o.value);
      });
      if (!syncError) this.onCommitted();
    };
    if (this.inMemory) return answer(null);
    this.log.committed(answer);
  }

  /**
   * Runs the group's requests in a new transaction, each request's outcome in order. Without savepoints,
   * a request that fails after writing rolls the whole transaction back and answers `undefined` (run the
   * group again with them).
   */
  private runGroup(batch: Request[], savepoints: boolean): Outcome[] | undefined {
    this.sql.begin.run();
    // Another connection (a second process on the file) may have written since this one last did.
    this.heads.begin();
    const outcomes: Outcome[] = [];
    for (const request of batch) {
      // A write of another kind (a snapshot, a clear) comes after the events queued before it.
      if (!savepoints && !request.checksFirst && this.pending.length > 0 && !this.tryInsertPending()) return undefined;
      if (savepoints) this.sql.savepoint.run();
      this.wrote = !request.checksFirst;
      const before = savepoints ? this.heads.mark() : undefined;
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
          this.heads.rollbackTo(before!);
          this.pending = [];
        } else if (this.wrote) {
          this.abandon();
          return undefined;
        }
        outcomes.push({ ok: false, value: error instanceof VersionConflict ? error : explainFileError(this.path, error, 'write refused') });
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
