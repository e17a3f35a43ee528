import { accessSync, closeSync, constants, existsSync, mkdirSync, openSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { AUTO_CHECKPOINT_PAGES } from './log-checkpoint.ts';
import { prepareSchema, StoreFileError } from './schema.ts';

/** `:memory:` (or an empty path): a database that keeps nothing, in this connection alone. */
export function isInMemory(path: string): boolean {
  return path === ':memory:' || path === '';
}

/**
 * Opens the file as an event store: its folder created, its schema prepared, WAL journaling with the log's
 * syncs left to the store (`synchronous=NORMAL`, synced by `LogSync`) and checkpoints too (`LogCheckpoint`).
 * A file that cannot be written, is damaged or is not a database is refused now, naming it, never at the
 * first call; nothing tries to repair or overwrite it.
 */
export function openDatabase(path: string, busyTimeoutMs = 5000): Database.Database {
  const inMemory = isInMemory(path);
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
  let db: Database.Database;
  try {
    db = new Database(path);
  } catch (error) {
    throw new StoreFileError(path, `cannot be opened as a SQLite database (${(error as Error).message})`, { cause: error });
  }
  try {
    db.pragma(`busy_timeout = ${busyTimeoutMs}`);
    prepareSchema(db, path, undefined, () => {
      if (!inMemory) {
        const mode = db.pragma('journal_mode = WAL', { simple: true });
        if (mode !== 'wal') throw new StoreFileError(path, `cannot switch to WAL journaling (got ${String(mode)})`);
      }
      // The log's sync after each commit is the store's own, off the event loop.
      db.pragma(inMemory ? 'synchronous = FULL' : 'synchronous = NORMAL');
      // Checkpoints are the store's own, their syncs off the event loop too (LogCheckpoint).
      if (!inMemory) db.pragma(`wal_autocheckpoint = ${AUTO_CHECKPOINT_PAGES}`);
    });
    // A cheap probe of the log's tail and its stream index, so a damaged file is refused at open
    // rather than at the first call (a full integrity check would cost a scan of the whole file).
    db.prepare('SELECT * FROM events ORDER BY position DESC LIMIT 1').get();
    db.prepare(`SELECT max(version) FROM events WHERE stream = ''`).get();
  } catch (error) {
    db.close();
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
  return db;
}

/** What a failure of SQLite on the file says to the operator: a damaged file named as such. */
export function explainFileError(path: string, error: unknown, what: string): Error {
  const code = (error as { code?: string }).code ?? '';
  if (code.startsWith('SQLITE_CORRUPT') || code === 'SQLITE_NOTADB') {
    return new StoreFileError(path, `is damaged: ${what} (${(error as Error).message}); the file was left as it is`, { cause: error });
  }
  if (code.startsWith('SQLITE_')) return new StoreFileError(path, `${what} (${(error as Error).message})`, { cause: error });
  return error as Error;
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
