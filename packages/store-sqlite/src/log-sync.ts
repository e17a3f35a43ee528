import { closeSync, openSync } from 'node:fs';
import { CHECKPOINT_EVERY, LogCheckpoint } from './log-checkpoint.ts';
import { StoreFileError } from './schema.ts';

export type SyncLog = (fd: number, done: (error: Error | null) => void) => void;

/**
 * When commits are durable: the write-ahead log is synced (`fdatasync` in Node's thread pool) after
 * commits, one sync covering every commit made before it started, and every few hundred commits the log
 * is copied into the database file (`LogCheckpoint`), between two syncs. Commits wait while a sync or a
 * checkpoint runs (`busy`); `resume` is told when they may go on (`soon`: at the end of this turn of
 * the event loop, so the writes arriving meanwhile join the group).
 */
export class LogSync {
  /** Commits made, and the number of them a finished sync covers. */
  private commitsMade = 0;
  private commitsSynced = 0;
  private syncing = false;
  private failure: StoreFileError | undefined;
  /** Answers waiting for a sync: `upTo` is the commit count they need covered. */
  private waiting: { upTo: number; settle: (error: Error | null) => void }[] = [];
  /** The write-ahead log's descriptor, opened after the first commit creates the log; the file's, after a checkpoint. */
  private logFd: number | undefined;
  private dbFd: number | undefined;
  private commitsSinceCheckpoint = 0;
  /** While a checkpoint runs (commits wait): the commit count and sync number after which it may copy. */
  private checkpointing: { upTo: number; afterSync: number; copied: boolean } | undefined;
  private checkpointEnded: (() => void) | undefined;

  constructor(
    private readonly path: string,
    private readonly syncLog: SyncLog,
    /** Absent for a database in memory, which is never synced. */
    private readonly checkpoint: LogCheckpoint | undefined,
    private readonly stats: { syncs: number },
    private readonly resume: (soon: boolean) => void,
  ) {}

  /** A sync or a checkpoint runs: commits made now would wait for the next sync anyway. */
  get busy(): boolean {
    return this.syncing || this.checkpointing !== undefined;
  }

  /** Set once a sync failed: nothing more is acknowledged. */
  get failed(): StoreFileError | undefined {
    return this.failure;
  }

  /** How many commits were made: a read waits for them (`synced`) before it answers. */
  get made(): number {
    return this.commitsMade;
  }

  /** Whether the first `upTo` commits are covered by a finished sync. */
  covers(upTo: number): boolean {
    return this.commitsSynced >= upTo;
  }

  /** A commit was made: `settle` is told once a sync covers it (or fails). */
  committed(settle: (error: Error | null) => void): void {
    this.commitsMade++;
    this.waiting.push({ upTo: this.commitsMade, settle });
    if (++this.commitsSinceCheckpoint >= CHECKPOINT_EVERY && !this.checkpointing && this.checkpoint) this.beginCheckpoint();
    this.startSync();
  }

  /** Resolves once a sync covers the first `upTo` commits; rejects when the log could not be synced. */
  synced(upTo: number): Promise<void> {
    if (this.failure) return Promise.reject(this.failure);
    if (this.commitsSynced >= upTo) return Promise.resolve();
    return new Promise((resolve, reject) => this.waiting.push({ upTo, settle: (error) => (error ? reject(error) : resolve()) }));
  }

  /** Every commit's answer is given, and a checkpoint under way has ended, before the file closes. */
  async close(): Promise<void> {
    await this.synced(this.commitsMade).catch(() => {});
    if (this.checkpointing) await new Promise<void>((resolve) => (this.checkpointEnded = resolve));
    if (this.logFd !== undefined) closeSync(this.logFd);
    if (this.dbFd !== undefined) closeSync(this.dbFd);
    this.checkpoint?.close();
  }

  /** Starts a sync of the log covering every commit made so far, unless one is running (the next follows it). */
  private startSync(): void {
    if (this.syncing || this.failure || this.commitsSynced >= this.commitsMade) return;
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
        this.resume(false);
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
      this.resume(true);
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
        this.resume(false);
        return;
      }
      this.endCheckpoint();
    });
  }

  private endCheckpoint(): void {
    this.checkpoint!.release();
    this.checkpointing = undefined;
    this.checkpointEnded?.();
    this.resume(false);
    this.startSync();
  }

  /**
   * After a failed sync nothing more is acknowledged: what the kernel failed to write may be gone, and a
   * later sync's success would not say otherwise. Every waiting answer and every later call gets the error.
   */
  private failSyncs(error: StoreFileError): void {
    this.failure = error;
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
}
