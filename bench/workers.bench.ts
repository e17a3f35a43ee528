import { availableParallelism, tmpdir } from 'node:os';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BenchLine, BenchReport } from './lib.ts';
import { SDP_SERVE, autocannon, startServerProcess, stopServerProcess, type LoadResult } from './server-process.ts';
import { measureContention } from './contention.ts';
import { workerAttempts } from './worker-attempts.ts';

const SECONDS = Number(process.env.WORKERS_BENCH_SECONDS ?? 5);
const CONNECTIONS = 50;
const KEY = 'bench-key-00000000000000000000001';
const ADMIN = 'bench-admin-token';

const start = (args: string[]) => startServerProcess(process.execPath, [...SDP_SERVE, '--access-log', 'off', ...args]);

async function load(url: string, seconds: number, accounts: number): Promise<LoadResult> {
  let connection = 0;
  return autocannon({
    url: url + '/v1.5/validate',
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ csdl: 'interaction.content contains "hello"' }),
    connections: CONNECTIONS,
    duration: seconds,
    setupClient: (client: { setHeaders(h: Record<string, string>): void }) => {
      // Each account's connections side by side (0, 0, ... 1, 1, ...), so that connections handed out in
      // turn give each account some on every worker.
      const n = Math.floor(((connection++ % CONNECTIONS) * accounts) / CONNECTIONS);
      client.setHeaders({ Authorization: `bench${n}:${KEY}`, 'Content-Type': 'application/json' });
    },
  });
}

/**
 * Issue 16's "using every core": `POST /v1.5/validate` from 50 accounts on one SQLite file, and from one
 * account (every worker then writes its credit stream: lanes pipelined across processes by the store's
 * last-event-id check), served by 1, 2 ... workers (up to the machine's cores), with the one-process
 * server as the baseline of the same run.
 * Nothing is pinned: the load generator shares the cores, so the figures are what this machine gives.
 */
export default async function workersBench(): Promise<BenchReport> {
  const dir = mkdtempSync(join(tmpdir(), 'sdp-workers-bench-'));
  const accounts = join(dir, 'accounts.json');
  const pkg = { credits_per_hour: 1e12, analyze_credits_per_hour: 1e12 };
  writeFileSync(accounts, JSON.stringify(Array.from({ length: CONNECTIONS }, (_, i) => ({ username: `bench${i}`, api_key: KEY, package: pkg }))));
  const counts = [1, ...Array.from({ length: Math.max(0, Math.min(4, availableParallelism()) - 1) }, (_, i) => i + 2)];
  const lines: BenchLine[] = [];
  const notes: string[] = [];
  try {
    for (const n of counts) {
      for (const users of [CONNECTIONS, 8, 1]) {
        // With workers, connections routed by account (what `sdp serve --workers` does) and, in the
        // same run, handed out in turn whatever their account (as before routing).
        for (const routing of n > 1 ? (['account', 'turns'] as const) : ([undefined] as const)) {
          if (routing) process.env.SDP_WORKERS_ROUTING = routing;
          const s = await start(['--store', `sqlite:${join(dir, `w${n}-${users}-${routing}.db`)}`, '--accounts', accounts, '--admin-token', ADMIN, ...(n > 1 ? ['--workers', String(n)] : [])]);
          delete process.env.SDP_WORKERS_ROUTING;
          try {
            await load(s.url, 1, users);
            const before = await workerAttempts(s.url, n, ADMIN);
            const r = await load(s.url, SECONDS, users);
            const after = await workerAttempts(s.url, n, ADMIN);
            const runs = after.runs - before.runs;
            const name = `sdp SQLite, ${users === 1 ? 'one account' : `${users} accounts`}, ${n} worker${n > 1 ? `s, routed ${routing === 'account' ? 'by account' : 'in turn'}` : ' (no cluster)'}`;
            if (r.non2xx + r.errors > 0) notes.push(`${name}: ${r.non2xx} non-2xx, ${r.errors} errors`);
            lines.push({
              name,
              opsPerSec: r.requests.average,
              extra: { p99_ms: r.latency.p99, conflicts_per_call: runs > 0 ? ((after.conflicts - before.conflicts) / runs).toFixed(3) : '-', non2xx: r.non2xx },
            });
          } finally {
            await stopServerProcess(s.child);
          }
        }
      }
    }
    // Where the conflicts come from, without HTTP: engines in 1, 2 ... processes over one store, each
    // with 12 calls in flight (as the issue's load: 12 connections a load process), their attempt loops'
    // counts summed. PostgreSQL with WORKERS_BENCH_POSTGRES=URL (its own schema: the bench clears it).
    const stores: [string, string][] = process.env.WORKERS_BENCH_HTTP_ONLY ? [] : [['SQLite', `sqlite:${join(dir, 'contention.db')}`]];
    const pg = process.env.WORKERS_BENCH_POSTGRES;
    if (pg && !process.env.WORKERS_BENCH_HTTP_ONLY) stores.push(['PostgreSQL', pg.includes('schema=') ? pg : `${pg}${pg.includes('?') ? '&' : '?'}schema=bench_workers`]);
    for (const [kind, store] of stores) {
      for (const users of [8, 1]) {
        for (const n of counts) for (const routed of n > 1 ? [true, false] : [false]) {
          const c = await measureContention(store, n, users, 12, SECONDS, routed);
          const name = `engines over ${kind}, ${users === 1 ? 'one account' : `${users} accounts`}, ${n} process${n > 1 ? (routed ? 'es, each account in one' : 'es, every account in each') : ''} (no HTTP)`;
          const non200 = Object.entries(c.statuses).filter(([st]) => st !== '200').map(([st, k]) => `${k} × ${st}`);
          if (non200.length > 0) notes.push(`${name}: ${non200.join(', ')}`);
          lines.push({
            name,
            opsPerSec: c.callsPerSec,
            extra: {
              conflicts_per_call: c.conflictsPerCall.toFixed(3),
              retries_per_call: c.retriesPerCall.toFixed(3),
              lane_waits_per_call: c.laneWaitsPerCall.toFixed(2),
              ...(kind === 'SQLite' ? { write_lock_wait: `${(c.lockWaitShare * 100).toFixed(1)}%` } : {}),
              loop_busy: `${(c.busyShare * 100).toFixed(0)}%`,
            },
          });
        }
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const cores = availableParallelism();
  notes.push(`${cores} cores shared with the load generator; ${CONNECTIONS} connections, ${SECONDS} s each`);
  notes.push(
    cores < 16
      ? `scaling figures need more cores: issue 27's goals (SQLite --workers 4 at least 2x one worker; 8 PostgreSQL processes at least 5x one) are measured with every server process and every load generator on a core of its own, 16 cores in all; on ${cores} cores the processes share cores, so these lines show contention (conflicts and retries per call), not scaling`
      : 'processes are not pinned here: for the issue\'s goals pin each server process and each load generator to a core of its own',
  );
  return { title: 'workers: throughput per worker count (SQLite, 50, 8 and one account, routed by account and in turn, same run), and the conflicts per call behind it', baseline: lines[0]!, subjects: lines.slice(1), notes };
}
