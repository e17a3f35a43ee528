import Database from 'better-sqlite3';

/** A checkpoint is started once this many commits have gone to the log since the last one. */
export const CHECKPOINT_EVERY = 200;

/**
 * SQLite's own checkpoint, the backstop should the store's fall behind (pages of log). Far above what
 * `CHECKPOINT_EVERY` commits write, so in a running store it never fires.
 */
export const AUTO_CHECKPOINT_PAGES = 50_000;

/**
 * Copies the write-ahead log into the database file without waiting for the disk on the event loop.
 * SQLite's automatic checkpoint runs inside a commit and syncs the log and then the database file
 * there, holding the event loop for both flushes (several milliseconds every thousand pages). Here the
 * store does the same steps with its syncs in the thread pool:
 *
 * 1. `pin`: a second connection opens a read transaction. While it stays open no writer, in this process
 *    or another, can start the log over, so the log's frames stay on disk until step 3 is done.
 * 2. The store syncs the log (its usual sync after a commit, started after the pin): every frame the
 *    checkpoint will copy is durable first, as SQLite's `synchronous=NORMAL` would ensure.
 * 3. `copy`: the checkpoint proper, with SQLite's syncs off (the store's are on either side), then the
 *    store syncs the database file; `release` ends the pin once that sync is done. Only then can the next
 *    commit start the log over (SQLite syncs the log's new header then, itself).
 *
 * The store commits nothing from the pin to the release, so the checkpoint copies the whole log and the
 * next commit can start it over; otherwise a busy log would never be copied completely and would grow.
 */
export class LogCheckpoint {
  private pinned: Database.Database | undefined;
  private statements: { begin: Database.Statement; read: Database.Statement; end: Database.Statement } | undefined;

  constructor(
    private readonly db: Database.Database,
    private readonly path: string,
  ) {}

  /** Step 1: opens the pinning read transaction (the connection on first use). */
  pin(): void {
    if (!this.statements) {
      this.pinned = new Database(this.path);
      this.statements = {
        begin: this.pinned.prepare('BEGIN'),
        read: this.pinned.prepare('SELECT position FROM events ORDER BY position DESC LIMIT 1'),
        end: this.pinned.prepare('COMMIT'),
      };
    }
    this.statements.begin.run();
    this.statements.read.get();
  }

  /**
   * Step 3, first half: copies the log's frames into the database file (in its page cache; the caller
   * syncs the file next). Answers whether every frame was copied.
   */
  copy(): boolean {
    this.db.pragma('synchronous = OFF');
    try {
      const [row] = this.db.pragma('wal_checkpoint(PASSIVE)') as { busy: number; log: number; checkpointed: number }[];
      return row !== undefined && row.busy === 0 && row.checkpointed === row.log;
    } finally {
      this.db.pragma('synchronous = NORMAL');
    }
  }

  /** Ends the pin: the database file holds every copied frame durably, the log may start over. */
  release(): void {
    if (this.pinned?.inTransaction) this.statements!.end.run();
  }

  close(): void {
    this.release();
    this.pinned?.close();
    this.pinned = undefined;
    this.statements = undefined;
  }
}
