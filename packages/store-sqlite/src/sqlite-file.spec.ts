import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, closeSync, fstatSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { ANY_VERSION, VersionConflict, type NewEvent } from '@sdp/core/kernel';
import { CHECKPOINT_EVERY } from './log-checkpoint.ts';
import { APPLICATION_ID, prepareSchema, SCHEMA_VERSION, StoreFileError, UNINDEXED_TYPE } from './schema.ts';
import { openSqliteStore, SqliteEventStore } from './sqlite-store.ts';

const dir = mkdtempSync(join(tmpdir(), 'sdp-sqlite-file-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
const file = (name: string) => join(dir, `${++n}-${name}`);
const digest = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');
const ev = (i: number, data: unknown = { i }): NewEvent => ({ id: `e${i}`, type: 'Happened', data, time: 1_700_000_000_000 + i });

async function openError(path: string): Promise<StoreFileError> {
  try {
    const store = await openSqliteStore(path);
    await store.close();
  } catch (error) {
    expect(error).toBeInstanceOf(StoreFileError);
    return error as StoreFileError;
  }
  throw new Error(`opening ${path} succeeded`);
}

/**
 * Makes a file unwritable for this process: permissions, and for root (whom permissions do not stop)
 * the immutable attribute where the file system has it. Undoes itself; `false` when nothing works here.
 */
function makeUnwritable(path: string): false | (() => void) {
  chmodSync(path, 0o444);
  const writable = () => {
    try {
      closeSync(openSync(path, 'r+'));
      return true;
    } catch {
      return false;
    }
  };
  if (!writable()) return () => chmodSync(path, 0o644);
  try {
    execFileSync('chattr', ['+i', path], { stdio: 'ignore' });
  } catch {
    return false;
  }
  const undo = () => {
    execFileSync('chattr', ['-i', path], { stdio: 'ignore' });
    chmodSync(path, 0o644);
  };
  if (writable()) {
    undo();
    return false;
  }
  return undo;
}

describe('the SQLite file', () => {
  it('refuses a read-only file as not writable, naming it', async (t) => {
    const path = file('readonly.db');
    const store = new SqliteEventStore(path);
    await store.append([{ stream: 's', expectedVersion: 0, events: [ev(1)] }]);
    await store.close();
    const undo = makeUnwritable(path);
    if (!undo) return t.skip('no way to make a file unwritable for this user here');
    try {
      const error = await openError(path);
      expect(error.message).toContain(path);
      expect(error.message).toMatch(/is not writable/);
    } finally {
      undo();
    }
  });

  it('is created with its folders, journals in WAL and syncs the log after every commit, before acknowledging', async () => {
    const path = join(dir, 'a/b/c/sdp.db');
    const store = new SqliteEventStore(path);
    expect(store.durability()).toEqual({ journalMode: 'wal', synchronous: 1, logSyncedBeforeAcknowledgement: true });
    await store.append([{ stream: 's', expectedVersion: 0, events: [ev(1)] }]);
    await store.close();
    const raw = new Database(path, { readonly: true });
    expect(raw.pragma('application_id', { simple: true })).toBe(APPLICATION_ID);
    expect(raw.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    raw.close();
    const again = await openSqliteStore(`sqlite:${path}`);
    expect((await again.readAll()).map((e) => e.id)).toEqual(['e1']);
    await again.close();
  });

  it('acknowledges a write only once the sync of the log after its commit has finished, and reads wait for it too', async () => {
    const held: { fd: number; done: (error: Error | null) => void }[] = [];
    const path = file('held.db');
    const store = new SqliteEventStore(path, { syncLog: (fd, done) => held.push({ fd, done }) });
    let acknowledged = false;
    const first = store.append([{ stream: 's', expectedVersion: 0, events: [ev(1)] }]).then(() => (acknowledged = true));
    await new Promise((r) => setTimeout(r, 20));
    // Committed (another connection sees it), but not acknowledged before its log is synced.
    const other = new Database(path, { readonly: true });
    expect(other.prepare('SELECT count(*) FROM events').pluck().get()).toBe(1);
    other.close();
    expect(held).toHaveLength(1);
    expect(acknowledged).toBe(false);
    // Every read, by whichever path: none answers with a commit a power cut could still take back.
    const answered = new Set<string>();
    const readWhen = <T>(name: string, reading: Promise<T>) => reading.then((value) => (answered.add(name), value));
    const reads = {
      all: readWhen('readAll', store.readAll()),
      stream: readWhen('readStream', store.readStream('s')),
      types: readWhen('readTypes', store.readTypes(['Happened'])),
      head: readWhen('head', store.head()),
    };
    // A second commit while the first sync runs waits for a sync of its own, after the first.
    const second = store.append([{ stream: 's', expectedVersion: 1, events: [ev(2)] }]);
    await new Promise((r) => setTimeout(r, 20));
    expect(held).toHaveLength(1);
    expect([...answered]).toEqual([]);
    held[0]!.done(null);
    await first;
    expect(acknowledged).toBe(true);
    expect((await reads.all).map((e) => e.id)).toEqual(['e1']);
    expect((await reads.stream).map((e) => e.id)).toEqual(['e1']);
    expect((await reads.types).map((e) => e.id)).toEqual(['e1']);
    expect(await reads.head).toBe(1);
    await new Promise((r) => setTimeout(r, 20));
    expect(held).toHaveLength(2);
    held[1]!.done(null);
    expect((await second).versions).toEqual([2]);
    await store.close();
  });

  it('answers a write whose log sync failed as a store failure, naming the file', async () => {
    const path = file('sync-fails.db');
    const store = new SqliteEventStore(path, { syncLog: (_fd, done) => done(Object.assign(new Error('EIO: i/o error'), { code: 'EIO' })) });
    const error = await store.append([{ stream: 's', expectedVersion: 0, events: [ev(1)] }]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoreFileError);
    expect((error as Error).message).toContain(path);
    expect((error as Error).message).toMatch(/syncing its log failed/);
    // What the kernel failed to write may be gone: nothing later is acknowledged either.
    await expect(store.append([{ stream: 't', expectedVersion: 0, events: [ev(2)] }])).rejects.toThrow(/syncing its log failed/);
    await store.close();
  });

  it('refuses a file that is not a database, naming it and leaving it unchanged', async () => {
    const path = file('garbage.db');
    writeFileSync(path, Buffer.from('this is not a database at all, just some text that fills a page. '.repeat(100)));
    const before = digest(path);
    const error = await openError(path);
    expect(error.message).toContain(path);
    expect(error.message).toMatch(/not a readable SQLite database/);
    expect(digest(path)).toBe(before);
  });

  it("refuses another application's SQLite database, naming it and changing nothing", async () => {
    const path = file('foreign.db');
    const foreign = new Database(path);
    foreign.exec(`CREATE TABLE users (name TEXT); INSERT INTO users VALUES ('ada'), ('grace');`);
    foreign.close();
    const before = digest(path);
    const error = await openError(path);
    expect(error.message).toContain(path);
    expect(error.message).toMatch(/another application/);
    expect(digest(path)).toBe(before);
    const check = new Database(path, { readonly: true });
    expect(check.pragma('journal_mode', { simple: true })).toBe('delete');
    expect(check.prepare('SELECT count(*) AS n FROM users').get()).toEqual({ n: 2 });
    check.close();
  });

  it('refuses a store written by a newer build', async () => {
    const path = file('newer.db');
    const store = await openSqliteStore(path);
    await store.close();
    const raw = new Database(path);
    raw.pragma(`user_version = ${SCHEMA_VERSION + 5}`);
    raw.close();
    const error = await openError(path);
    expect(error.message).toMatch(/newer than this build/);
  });

  it('refuses a damaged store (truncated pages), naming the file, and does not repair it by overwriting', async () => {
    const path = file('damaged.db');
    const store = new SqliteEventStore(path);
    for (let b = 0; b < 20; b++) {
      await store.append([{ stream: `s${b}`, expectedVersion: 0, events: Array.from({ length: 50 }, (_, i) => ev(b * 50 + i, { pad: 'p'.repeat(200), i })) }]);
    }
    await store.close();
    const raw = new Database(path);
    raw.pragma('wal_checkpoint(TRUNCATE)');
    raw.close();
    truncateSync(path, Math.floor(statSync(path).size / 2));
    const before = digest(path);
    const error = await openError(path);
    expect(error.message).toContain(path);
    expect(error.message).toMatch(/damaged|malformed/);
    expect(digest(path)).toBe(before);
  });

  it('refuses a folder where the file should be', async () => {
    const path = file('folder.db');
    mkdirSync(path);
    const error = await openError(path);
    expect(error.message).toContain(path);
  });

  it('migrates a store of an older schema, keeping every event', async () => {
    const path = file('old.db');
    const raw = new Database(path);
    prepareSchema(raw, path, 1);
    const insert = raw.prepare('INSERT INTO events (stream, version, id, type, data, time) VALUES (?, ?, ?, ?, ?, ?)');
    for (let i = 1; i <= 5; i++) insert.run('account:old', i, `old${i}`, 'Happened', JSON.stringify({ i }), 1000 + i);
    expect(raw.pragma('user_version', { simple: true })).toBe(1);
    expect(raw.prepare(`SELECT count(*) AS n FROM sqlite_schema WHERE name = 'snapshots'`).get()).toEqual({ n: 0 });
    raw.close();

    const store = await openSqliteStore(path);
    // Written before events had schema versions: each is at version 1.
    expect((await store.readStream('account:old')).map((e) => [e.version, e.id, e.data, e.schemaVersion])).toEqual(
      [1, 2, 3, 4, 5].map((i) => [i, `old${i}`, { i }, 1]),
    );
    await expect(store.append([{ stream: 'account:old', expectedVersion: 4, events: [ev(6)] }])).rejects.toBeInstanceOf(VersionConflict);
    expect(await store.append([{ stream: 'account:old', expectedVersion: 5, events: [ev(6)] }])).toEqual({ versions: [6], lastPosition: 6 });
    await store.writeSnapshot!({ stream: 'account:old', kind: 'k', version: 6, state: { ok: true } });
    expect((await store.readSnapshot!('account:old', 'k'))!.state).toEqual({ ok: true });
    await store.close();
    const check = new Database(path, { readonly: true });
    expect(check.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    check.close();
  });
});

describe('events by type', () => {
  it('leave the charges out of the type index: a schema 4 file migrates, other types are sought in the index, the charges still read', async () => {
    const path = file('types.db');
    const raw = new Database(path);
    prepareSchema(raw, path, 4);
    const insert = raw.prepare('INSERT INTO events (stream, version, id, type, data, time) VALUES (?, ?, ?, ?, ?, ?)');
    for (let i = 1; i <= 30; i++) insert.run('credits:a', i, `c${i}`, i % 10 === 0 ? 'Recorded' : UNINDEXED_TYPE, JSON.stringify({ i }), 1000 + i);
    raw.close();

    const store = new SqliteEventStore(path);
    const all = await store.readAll();
    const ofTypes = (types: string[], after: number) => all.filter((e) => types.includes(e.type) && e.position > after);
    for (const types of [['Recorded'], [UNINDEXED_TYPE], ['Recorded', UNINDEXED_TYPE], ['Nothing']]) {
      for (const after of [0, 10, 25]) expect(await store.readTypes(types, after)).toEqual(ofTypes(types, after));
    }
    expect((await store.readTypes(['Recorded', UNINDEXED_TYPE], 0, 2)).map((e) => e.position)).toEqual([1, 2]);
    const statement = (store as unknown as { reads: { byTypes: Map<number, Database.Statement> } }).reads.byTypes.get(1)!;
    await store.close();

    const check = new Database(path, { readonly: true });
    expect(check.prepare(`SELECT sql FROM sqlite_schema WHERE name = 'events_type'`).pluck().get()).toContain(`WHERE type <> '${UNINDEXED_TYPE}'`);
    const plan = check.prepare(`EXPLAIN QUERY PLAN ${statement.source}`).all('Recorded', 0, 10) as { detail: string }[];
    expect(plan.map((row) => row.detail).join(' ')).toContain('INDEX events_type');
    check.close();
  });
});

describe('group commit', () => {
  it('appends arriving in one turn of the event loop share one transaction (one sync)', async () => {
    const store = new SqliteEventStore(file('group.db'));
    const before = { ...store.stats };
    const results = await Promise.allSettled(
      Array.from({ length: 50 }, (_, i) => store.append([{ stream: i === 7 ? 'x' : `s${i}`, expectedVersion: i === 7 ? 3 : 0, events: [ev(i)] }])),
    );
    expect(store.stats.commits - before.commits).toBe(1);
    expect(store.stats.requests - before.requests).toBe(50);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(49);
    expect((results[7] as PromiseRejectedResult).reason).toBeInstanceOf(VersionConflict);
    expect(await store.head()).toBe(49);
    await store.close();
  });

  it('an append that follows a committed one waits for the next commit; close commits what is queued', async () => {
    const path = file('close.db');
    const store = new SqliteEventStore(path);
    await store.append([{ stream: 's', expectedVersion: 0, events: [ev(1)] }]);
    const pending = store.append([{ stream: 's', expectedVersion: 1, events: [ev(2)] }]);
    await store.close();
    await expect(pending).resolves.toEqual({ versions: [2], lastPosition: 2 });
    await expect(store.append([{ stream: 's', expectedVersion: 2, events: [ev(3)] }])).rejects.toThrow(/closed/);
    const again = await openSqliteStore(path);
    expect(await again.head()).toBe(2);
    await again.close();
  });
});

describe('versions known without a query', () => {
  it('are read again once another connection has written the file (a second process on it)', async () => {
    const path = file('two-writers.db');
    const a = new SqliteEventStore(path);
    const b = new SqliteEventStore(path);
    await a.append([{ stream: 's', expectedVersion: 0, events: [ev(1)] }]);
    await b.append([{ stream: 's', expectedVersion: 1, events: [ev(2)] }]);
    // `a` last wrote version 1; the file is at 2: its stale knowledge must not pass a check, neither a
    // read guard's (which writes nothing the file's unique index could refuse) nor a write's.
    await expect(a.append([{ stream: 's', expectedVersion: 1, events: [] }])).rejects.toBeInstanceOf(VersionConflict);
    await expect(a.append([{ stream: 's', expectedVersion: 1, events: [ev(3)] }])).rejects.toBeInstanceOf(VersionConflict);
    expect((await a.append([{ stream: 's', expectedVersion: 2, events: [ev(3)] }])).versions).toEqual([3]);
    await expect(b.append([{ stream: 's', expectedVersion: 2, events: [ev(4)] }])).rejects.toBeInstanceOf(VersionConflict);
    await a.close();
    await b.close();
  });

  it('a group whose inserts meet what the store wrongly believed (a stale head, a stale version) is taken back whole and runs again, refusing only the conflict', async () => {
    const store = new SqliteEventStore(file('stale.db'));
    await store.append([{ stream: 'a', expectedVersion: 0, events: [ev(1)] }]);
    await store.append([{ stream: 'b', expectedVersion: 0, events: [ev(2)] }]);
    // As if its knowledge were out of date: the file's head is 2 and stream a at version 1.
    const known = (store as unknown as { writer: { heads: { headPosition: number | undefined; versions: Map<string, number> } } }).writer.heads;
    known.headPosition = 1;
    known.versions.set('a', 0);
    const results = await Promise.allSettled([
      store.append([{ stream: 'c', expectedVersion: 0, events: [ev(3)] }]),
      store.append([{ stream: 'a', expectedVersion: 0, events: [ev(4)] }]),
      store.append([{ stream: 'c', expectedVersion: 1, events: [ev(5)] }]),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((results[1] as PromiseRejectedResult).reason).toBeInstanceOf(VersionConflict);
    expect((results[2] as PromiseFulfilledResult<unknown>).value).toEqual({ versions: [2], lastPosition: 4 });
    expect((await store.readAll()).map((e) => [e.stream, e.version, e.position, e.id])).toEqual([
      ['a', 1, 1, 'e1'],
      ['b', 1, 2, 'e2'],
      ['c', 1, 3, 'e3'],
      ['c', 2, 4, 'e5'],
    ]);
    await store.close();
  });

  it('an append that fails halfway through its writes takes back only its own, in a group that commits the rest', async () => {
    const store = new SqliteEventStore(file('halfway.db'));
    const results = await Promise.allSettled([
      store.append([{ stream: 'a', expectedVersion: 0, events: [ev(1)] }]),
      // Its second event cannot be bound (a time that is no number): the first was written by then.
      store.append([{ stream: 'b', expectedVersion: 0, events: [ev(2), { ...ev(3), time: {} as unknown as number }] }]),
      store.append([{ stream: 'a', expectedVersion: 1, events: [ev(4)] }, { stream: 'c', expectedVersion: 0, events: [ev(5)] }]),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((await store.readAll()).map((e) => [e.stream, e.version, e.id])).toEqual([
      ['a', 1, 'e1'],
      ['a', 2, 'e4'],
      ['c', 1, 'e5'],
    ]);
    expect((await store.append([{ stream: 'b', expectedVersion: 0, events: [ev(6)] }])).versions).toEqual([1]);
    await store.close();
  });
});

describe('checkpoints', () => {
  /** The write-ahead log's salt (its header's bytes 16 to 23): it changes when the log starts over. */
  const logSalt = (path: string) => readFileSync(`${path}-wal`).subarray(16, 24).toString('hex');

  it('copy the log only once it is synced, and let it start over only once the database file is synced too; commits wait meanwhile', async () => {
    const path = file('checkpoint-order.db');
    const syncs: { file: 'log' | 'database'; done: (error: Error | null) => void }[] = [];
    const store = new SqliteEventStore(path, {
      syncLog: (fd, done) => syncs.push({ file: fstatSync(fd).ino === statSync(path).ino ? 'database' : 'log', done }),
    });
    const committed = () => {
      const other = new Database(path, { readonly: true });
      try {
        return other.prepare('SELECT count(*) FROM events').pluck().get() as number;
      } finally {
        other.close();
      }
    };
    const settle = async () => {
      for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
    };
    // Commits up to the one that starts a checkpoint, each synced as it comes.
    for (let i = 1; i < CHECKPOINT_EVERY; i++) {
      const written = store.append([{ stream: 's', expectedVersion: i - 1, events: [ev(i)] }]);
      await settle();
      syncs.shift()!.done(null);
      await written;
    }
    const salt = logSalt(path);
    const last = store.append([{ stream: 's', expectedVersion: CHECKPOINT_EVERY - 1, events: [ev(CHECKPOINT_EVERY)] }]);
    await settle();
    expect(syncs.map((s) => s.file)).toEqual(['log']);
    // A write arriving now waits for the checkpoint: it is not committed, and its log is not synced.
    const next = store.append([{ stream: 's', expectedVersion: CHECKPOINT_EVERY, events: [ev(CHECKPOINT_EVERY + 1)] }]);
    syncs.shift()!.done(null);
    await last;
    await settle();
    // The log is synced: the checkpoint copied it and asks for the database file's sync; the log is kept.
    expect(syncs.map((s) => s.file)).toEqual(['database']);
    expect(committed()).toBe(CHECKPOINT_EVERY);
    expect(logSalt(path)).toBe(salt);
    syncs.shift()!.done(null);
    await settle();
    // The file is durable: the waiting write commits, starting the log over, and its sync follows.
    expect(committed()).toBe(CHECKPOINT_EVERY + 1);
    expect(logSalt(path)).not.toBe(salt);
    expect(syncs.map((s) => s.file)).toEqual(['log']);
    syncs.shift()!.done(null);
    expect((await next).versions).toEqual([CHECKPOINT_EVERY + 1]);
    await store.close();
  });

  it('end with a failed sync, so the store still closes (the failure answered)', async () => {
    for (const failing of ['log', 'database'] as const) {
      const path = file(`checkpoint-fails-${failing}.db`);
      let logSyncs = 0;
      const store = new SqliteEventStore(path, {
        syncLog: (fd, done) => {
          const isLog = fstatSync(fd).ino !== statSync(path).ino;
          if (isLog) logSyncs++;
          const fails = failing === 'log' ? isLog && logSyncs === CHECKPOINT_EVERY : !isLog;
          setImmediate(() => done(fails ? new Error('EIO: i/o error') : null));
        },
      });
      const results = [];
      for (let i = 1; i <= CHECKPOINT_EVERY + 1; i++) results.push(await store.append([{ stream: 's', expectedVersion: i - 1, events: [ev(i)] }]).then(() => 'ok', (e: Error) => e.message));
      expect(results.filter((r) => r !== 'ok')).toHaveLength(failing === 'log' ? 2 : 1);
      expect(results.at(-1)).toMatch(failing === 'log' ? /syncing its log failed/ : /syncing the database file after a checkpoint failed/);
      const closed = await Promise.race([store.close().then(() => 'closed'), new Promise((r) => setTimeout(() => r('still open'), 2000))]);
      expect(closed).toBe('closed');
    }
  });

  it('keep a busy log from growing: it starts over after each checkpoint, and every event stays', async () => {
    const path = file('checkpoint-bounded.db');
    const store = new SqliteEventStore(path);
    const pad = 'p'.repeat(1000);
    let version = 0;
    for (let commit = 0; commit < 5 * CHECKPOINT_EVERY; commit++) {
      const streams = Array.from({ length: 5 }, (_, i) => `s${(commit * 5 + i) % 40}`);
      await Promise.all(streams.map((stream) => store.append([{ stream, expectedVersion: ANY_VERSION, events: [ev(++version, { pad })] }])));
    }
    // Each commit writes a few pages; without checkpoints the log would hold all of them.
    expect(statSync(`${path}-wal`).size).toBeLessThan(CHECKPOINT_EVERY * 20 * 4096);
    await store.close();
    const again = await openSqliteStore(path);
    expect(await again.head()).toBe(version);
    await again.close();
  });
});
