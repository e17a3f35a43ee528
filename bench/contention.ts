import { fork } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createEngine, type AttemptCounts } from '@sdp/core';
import { seededIds } from '@sdp/core/kernel';
import { SystemClock } from '@sdp/clock';
import { SqliteEventStore } from '@sdp/store-sqlite';
import { connectPostgresStore } from '@sdp/store-postgres';

const here = dirname(fileURLToPath(import.meta.url));
const KEY = 'bench-key-00000000000000000000001';

export interface Contention {
  processes: number;
  accounts: number;
  callsPerSec: number;
  /** Calls answered a second by each process (mean). */
  callsPerSecPerProcess: number;
  /** Of every call's time from asked to answered, all processes together (ms). */
  p50Ms: number;
  p99Ms: number;
  statuses: Record<string, number>;
  /** Per answered call: attempts another writer beat, retries, waits for an account's lane in its process. */
  conflictsPerCall: number;
  retriesPerCall: number;
  laneWaitsPerCall: number;
  /** Calls answered 503 after every attempt lost. */
  gaveUp: number;
  /** SQLite: share of each process's time its event loop was blocked waiting for the write lock (mean). */
  lockWaitShare: number;
  /** Each process's event loop busy share (mean). */
  busyShare: number;
}

/**
 * Where the conflicts under `--workers` come from, without HTTP in the way: `processes` processes, each an
 * engine over one store (`sqlite:FILE` or a PostgreSQL URL) as a `--workers` process runs it, each with
 * `concurrency` calls of `POST /validate` in flight over `accounts` accounts for `seconds`; the attempt
 * loops' counts summed. One process is the sole writer (as `sdp serve` without `--workers` on SQLite).
 */
export async function measureContention(
  store: string,
  processes: number,
  accounts: number,
  concurrency: number,
  seconds: number,
  /**
   * Each process calls only the accounts it owns (account n to process n mod processes), as `--workers`
   * routes them, and trusts its cached states as an owner does; false: every process calls every account
   * and reads each stream's tail on every load (as before routing).
   */
  routed = false,
): Promise<Contention> {
  const events = store.startsWith('postgres') ? await connectPostgresStore(store) : new SqliteEventStore(store.replace(/^sqlite:/, ''));
  try {
    await events.clear();
    const engine = createEngine({ store: events, clock: new SystemClock(), ids: seededIds(1) });
    for (let i = 0; i < accounts; i++) await engine.openAccount({ username: `bench${i}`, api_key: KEY, package: { credits_per_hour: 1e12, analyze_credits_per_hour: 1e12 } });
  } finally {
    await events.close();
  }
  const sole = routed || (processes === 1 && !store.startsWith('postgres'));
  const children = Array.from({ length: processes }, (_, index) =>
    fork(join(here, 'contention-child.ts'), [store, String(accounts), String(concurrency), String(seconds), sole ? 'sole' : 'shared', routed ? `${index}/${processes}` : 'all'], {
      execArgv: ['--conditions=@sdp/source', '--import', 'tsx'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    }),
  );
  const results = children.map(
    (child) =>
      new Promise<Reported>((resolve, reject) => {
        child.on('message', (m: Reported | { ready: true }) => {
          if (!('ready' in m)) resolve(m);
        });
        child.on('exit', (code) => (code ? reject(new Error(`contention child exited ${code}`)) : undefined));
      }),
  );
  await Promise.all(children.map((child) => new Promise<void>((ready) => child.once('message', () => ready()))));
  for (const child of children) child.send('go');
  const all = await Promise.all(results);
  const statuses: Record<string, number> = {};
  let calls = 0;
  let conflicts = 0;
  let gaveUp = 0;
  let laneWaits = 0;
  let lockWaitMs = 0;
  let busy = 0;
  const latencies: number[] = [];
  for (const r of all) {
    for (const l of r.latencies) latencies.push(l);
    lockWaitMs += r.lockWaitMs;
    busy += r.busy;
    for (const [s, n] of Object.entries(r.statuses)) statuses[s] = (statuses[s] ?? 0) + n;
    calls += Object.values(r.statuses).reduce((a, b) => a + b, 0);
    conflicts += r.counts.conflicts;
    gaveUp += r.counts.gaveUp.conflicts;
    laneWaits += r.counts.laneWaits;
  }
  return {
    processes,
    accounts,
    callsPerSec: calls / seconds,
    callsPerSecPerProcess: calls / seconds / processes,
    p50Ms: percentile(latencies, 0.5),
    p99Ms: percentile(latencies, 0.99),
    statuses,
    conflictsPerCall: conflicts / calls,
    retriesPerCall: (conflicts - gaveUp) / calls,
    laneWaitsPerCall: laneWaits / calls,
    gaveUp,
    lockWaitShare: lockWaitMs / (seconds * 1000 * processes),
    busyShare: busy / processes,
  };
}

function percentile(values: number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = Float64Array.from(values).sort();
  return Math.round(sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]! * 100) / 100;
}

interface Reported {
  statuses: Record<string, number>;
  latencies: number[];
  counts: AttemptCounts;
  lockWaitMs: number;
  busy: number;
}

// `node --conditions=@sdp/source --import tsx bench/contention.ts STORE PROCESSES ACCOUNTS CONCURRENCY SECONDS [routed]`
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [store, p, a, c, s, routed] = process.argv.slice(2);
  console.log(JSON.stringify(await measureContention(store!, Number(p ?? 2), Number(a ?? 8), Number(c ?? 12), Number(s ?? 5), routed === 'routed')));
}
