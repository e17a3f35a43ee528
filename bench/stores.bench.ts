import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { accountDecider, creditsDecider } from '@sdp/core/deciders';
import { MemoryEventStore, replay, type EventStore, type NewEvent } from '@sdp/core/kernel';
import { openSqliteStore, SqliteEventStore } from '@sdp/store-sqlite';
import { PostgresEventStore } from '@sdp/store-postgres';
import { opsPerSecond, type BenchReport, type BenchLine } from './lib.ts';

/**
 * Issue 6's measures: appends per second on each store (one caller, and 50 concurrent callers) beside a
 * raw insert loop on the same engine with the same durability, measured in the same run; and replaying
 * 1,000,000 events from a SQLite file. PostgreSQL runs when SDP_TEST_POSTGRES names a server.
 */
const MS = 2000;
const CONCURRENT = 50;
const T = Date.parse('2026-03-01T10:00:00Z');
const payload = { at: T, endpoint: 'core.balance', lines: [{ key: 'general', cost: 25, start: T }] };
let seq = 0;
const event = (): NewEvent => ({ id: `bench-${++seq}`, type: 'CreditsCharged', data: payload, time: T });

/** `workers` loops each appending to its own stream at its expected version, for about `ms`. */
async function concurrentAppends(store: EventStore, workers: number, ms: number, tag: string): Promise<number> {
  let ops = 0;
  // A deadline, not a timer: the memory store answers in microtasks, so a timer would never get to fire.
  const start = performance.now();
  const deadline = start + ms;
  const worker = async (w: number): Promise<void> => {
    const stream = `bench:${tag}:${w}`;
    let version = (await store.readStream(stream)).length;
    while (performance.now() < deadline) {
      await store.append([{ stream, expectedVersion: version, events: [event()] }]);
      version++;
      ops++;
    }
  };
  await Promise.all(Array.from({ length: workers }, (_, w) => worker(w)));
  return (ops * 1000) / (performance.now() - start);
}

async function singleAppends(store: EventStore, tag: string, ms = MS): Promise<number> {
  let version = 0;
  return opsPerSecond(async () => {
    await store.append([{ stream: `bench:${tag}:single`, expectedVersion: version, events: [event()] }]);
    version++;
  }, ms, 20);
}

export async function sqliteReport(dir: string): Promise<BenchReport> {
  // The baseline: better-sqlite3 alone, same table shape and durability, one insert per transaction.
  const raw = new Database(join(dir, 'raw.db'));
  raw.pragma('journal_mode = WAL');
  raw.pragma('synchronous = FULL');
  raw.exec('CREATE TABLE events (position INTEGER PRIMARY KEY, stream TEXT, version INTEGER, id TEXT, type TEXT, data TEXT, time INTEGER, UNIQUE (stream, version))');
  const insert = raw.prepare('INSERT INTO events (stream, version, id, type, data, time) VALUES (?, ?, ?, ?, ?, ?)');
  let v = 0;
  const rawRate = await opsPerSecond(() => {
    const e = event();
    insert.run('raw', ++v, e.id, e.type, JSON.stringify(e.data), e.time);
  }, MS, 20);
  raw.close();

  const store = new SqliteEventStore(join(dir, 'store.db'));
  const single = await singleAppends(store, 'sqlite');
  const before = { ...store.stats };
  const concurrent = await concurrentAppends(store, CONCURRENT, MS, 'sqlite');
  const perCommit = (store.stats.requests - before.requests) / (store.stats.commits - before.commits);
  await store.close();
  return {
    title: 'stores: SQLite appends (WAL, synchronous=FULL: every acknowledged append synced)',
    baseline: { name: 'raw better-sqlite3 INSERT, one transaction each', opsPerSec: rawRate },
    subjects: [
      { name: 'SqliteEventStore.append, one caller', opsPerSec: single },
      { name: `SqliteEventStore.append, ${CONCURRENT} concurrent callers`, opsPerSec: concurrent, extra: { 'appends per commit': perCommit.toFixed(1) } },
    ],
    notes: ['group commit: the concurrent figure shares each sync among the appends of one event-loop turn'],
  };
}

export async function postgresReport(url: string): Promise<BenchReport | undefined> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
  } catch {
    return undefined;
  }
  const schema = `sdp_bench_${process.pid}`;
  await client.query(`CREATE SCHEMA ${schema}`);
  await client.query(`CREATE TABLE ${schema}.raw (position bigserial PRIMARY KEY, stream text, version integer, id text, type text, data text, time bigint, UNIQUE (stream, version))`);
  let v = 0;
  const rawRate = await opsPerSecond(async () => {
    const e = event();
    await client.query(`INSERT INTO ${schema}.raw (stream, version, id, type, data, time) VALUES ($1, $2, $3, $4, $5, $6)`, ['raw', ++v, e.id, e.type, JSON.stringify(e.data), e.time]);
  }, MS, 20);
  // Raw inserts from 50 concurrent callers over a pool, for the concurrent figure's comparison.
  const pool = new pg.Pool({ connectionString: url, max: 10 });
  let rawConcurrent = 0;
  {
    let ops = 0;
    const start = performance.now();
    await Promise.all(Array.from({ length: CONCURRENT }, async (_, w) => {
      for (let k = 0; performance.now() < start + MS; k++) {
        const e = event();
        await pool.query(`INSERT INTO ${schema}.raw (stream, version, id, type, data, time) VALUES ($1, $2, $3, $4, $5, $6)`, [`c${w}`, k + 1, e.id, e.type, JSON.stringify(e.data), e.time]);
        ops++;
      }
    }));
    rawConcurrent = (ops * 1000) / (performance.now() - start);
  }
  await pool.end();

  const store = await PostgresEventStore.connect(url, { schema });
  const single = await singleAppends(store, 'pg');
  const concurrent = await concurrentAppends(store, CONCURRENT, MS, 'pg');
  await store.drop();
  await store.close();
  await client.end();
  return {
    title: 'stores: PostgreSQL appends (serialized by an advisory lock, grouped per process)',
    baseline: { name: 'raw pg INSERT, one caller, autocommit', opsPerSec: rawRate },
    subjects: [
      { name: `raw pg INSERT, ${CONCURRENT} concurrent callers, pool of 10`, opsPerSec: rawConcurrent },
      { name: 'PostgresEventStore.append, one caller', opsPerSec: single },
      { name: `PostgresEventStore.append, ${CONCURRENT} concurrent callers`, opsPerSec: concurrent },
    ],
  };
}

async function memoryReport(): Promise<BenchReport> {
  // Kept short so the log it grows stays small: both sides keep every event they are given.
  const map = new Map<string, unknown[]>();
  const rawRate = await opsPerSecond(() => {
    const list = map.get('raw') ?? [];
    list.push(event());
    if (list.length >= 100_000) list.length = 0;
    map.set('raw', list);
  }, 500, 100);
  const store = new MemoryEventStore();
  return {
    title: 'stores: memory appends',
    baseline: { name: 'Map of arrays, push', opsPerSec: rawRate },
    subjects: [
      { name: 'MemoryEventStore.append, one caller', opsPerSec: await singleAppends(store, 'mem', 500) },
      { name: `MemoryEventStore.append, ${CONCURRENT} concurrent callers`, opsPerSec: await concurrentAppends(store, CONCURRENT, 500, 'mem') },
    ],
  };
}

/** 1,000,000 charge events over 1,000 accounts (plus their opening events), written straight into a store file. */
function buildLog(path: string, events: number, accounts: number): void {
  const store = new SqliteEventStore(path);
  void store.close();
  const db = new Database(path);
  const insert = db.prepare('INSERT INTO events (stream, version, id, type, data, time) VALUES (?, ?, ?, ?, ?, ?)');
  const versions = new Array<number>(accounts).fill(0);
  db.transaction(() => {
    for (let a = 0; a < accounts; a++) {
      const opened = { username: `u${a}`, keyHash: 'k'.repeat(64), salt: 's'.repeat(16), package: {}, at: T };
      insert.run(`account:u${a}`, 1, `open-${a}`, 'AccountOpened', JSON.stringify(opened), T);
    }
    for (let i = 0; i < events; i++) {
      const a = i % accounts;
      const data = { at: T + i, endpoint: 'core.balance', lines: [{ key: 'general', cost: 25, start: T }] };
      insert.run(`credits:u${a}`, ++versions[a]!, `c${i}`, 'CreditsCharged', JSON.stringify(data), T + i);
    }
  })();
  db.close();
}

export async function replayReport(dir: string): Promise<BenchReport> {
  const N = 1_000_000;
  const path = join(dir, 'replay.db');
  buildLog(path, N, 1000);
  const store = await openSqliteStore(path);
  const total = await store.head();

  // The baseline: reading every row of the same file and parsing its data, no folding.
  const db = new Database(path, { readonly: true });
  let t = performance.now();
  let parsed = 0;
  for (const row of db.prepare('SELECT data FROM events ORDER BY position').raw().iterate()) {
    JSON.parse((row as [string])[0]);
    parsed++;
  }
  const scanSeconds = (performance.now() - t) / 1000;
  db.close();

  t = performance.now();
  const report = await replay(store, [
    { decider: accountDecider, prefix: 'account:' },
    { decider: creditsDecider, prefix: 'credits:' },
  ]);
  const replaySeconds = (performance.now() - t) / 1000;
  await store.close();
  if (report.events !== total || parsed !== total) throw new Error(`replay bench: read ${report.events} and ${parsed} of ${total} events`);
  const line = (name: string, seconds: number, extra?: BenchLine['extra']): BenchLine => ({ name, opsPerSec: total / seconds, extra: { seconds: seconds.toFixed(2), ...extra } });
  return {
    title: `stores: replaying ${total.toLocaleString('en-US')} events from a SQLite file (events per second)`,
    baseline: line('raw better-sqlite3 scan + JSON.parse of every row', scanSeconds),
    subjects: [line('replay(): readAll pages, fold 2,000 aggregates (immer), check snapshots', replaySeconds, { aggregates: report.aggregates.size, mismatches: report.mismatches.length })],
    goal: { text: 'replaying 1,000,000 events takes a few seconds (<= 5 s)', met: replaySeconds <= 5 },
  };
}

export default async function storesBench(): Promise<BenchReport[]> {
  const dir = mkdtempSync(join(tmpdir(), 'sdp-bench-stores-'));
  try {
    const reports: BenchReport[] = [await memoryReport(), await sqliteReport(dir)];
    const url = process.env.SDP_TEST_POSTGRES;
    const pgReport = url ? await postgresReport(url) : undefined;
    if (pgReport) reports.push(pgReport);
    else reports[1]!.notes!.push(`PostgreSQL not measured: ${url ? `${url} does not answer` : 'SDP_TEST_POSTGRES is not set'}`);
    reports.push(await replayReport(dir));
    return reports;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
