import { availableParallelism, tmpdir } from 'node:os';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BenchLine, BenchReport } from './lib.ts';
import { SDP_SERVE, autocannon, startServerProcess, stopServerProcess, type LoadResult } from './server-process.ts';

const SECONDS = Number(process.env.WORKERS_BENCH_SECONDS ?? 5);
const CONNECTIONS = 50;
const KEY = 'bench-key-00000000000000000000001';
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
      const n = connection++ % accounts;
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
      for (const users of [CONNECTIONS, 1]) {
        const s = await start(['--store', `sqlite:${join(dir, `w${n}-${users}.db`)}`, '--accounts', accounts, ...(n > 1 ? ['--workers', String(n)] : [])]);
        try {
          await load(s.url, 1, users);
          const r = await load(s.url, SECONDS, users);
          const name = `sdp SQLite, ${users === 1 ? 'one account' : `${users} accounts`}, ${n} worker${n > 1 ? 's' : ' (no cluster)'}`;
          if (r.non2xx + r.errors > 0) notes.push(`${name}: ${r.non2xx} non-2xx, ${r.errors} errors`);
          lines.push({ name, opsPerSec: r.requests.average, extra: { p99_ms: r.latency.p99 } });
        } finally {
          await stopServerProcess(s.child);
        }
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  notes.push(`${availableParallelism()} cores shared with the load generator; ${CONNECTIONS} connections, ${SECONDS} s each`);
  return { title: 'workers: throughput per worker count (SQLite, 50 accounts and one, same run)', baseline: lines[0]!, subjects: lines.slice(1), notes };
}
