import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BenchLine, BenchReport } from './lib.ts';
import { SDP_SERVE, benchAccountsFile, startServerProcess, stopServerProcess, autocannon, BENCH_KEY, type LoadResult } from './server-process.ts';
import { findNginx, startNginx } from '../packages/server/test/nginx-kit.ts';

const SECONDS = Number(process.env.NGINX_BENCH_SECONDS ?? 5);
const ACCOUNTS = 8;
const CONNECTIONS = 24;
const PROCESSES = 3;
const TOKEN = 'bench-admin-token';

interface Attempts {
  runs: number;
  conflicts: number;
  gave_up: { conflicts: number };
}

const attempts = async (url: string): Promise<Attempts> => (await (await fetch(`${url}/_admin/attempts`, { headers: { Authorization: `Bearer ${TOKEN}` } })).json()) as Attempts;

function load(url: string, seconds: number): Promise<LoadResult> {
  let connection = 0;
  return autocannon({
    url: url + '/v1.5/validate',
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ csdl: 'interaction.content contains "hello"' }),
    connections: CONNECTIONS,
    duration: seconds,
    setupClient: (client: { setHeaders(h: Record<string, string>): void }) => {
      const n = connection++ % ACCOUNTS;
      client.setHeaders({ Authorization: `bench${n}:${BENCH_KEY}${n}`, 'Content-Type': 'application/json' });
    },
  });
}

/**
 * Issue 27's "many machines" on one machine: three `sdp serve` processes on one store behind nginx with
 * the shipped configuration (packages/server/deploy/nginx/sdp.conf: each account hashed to one process) and the same
 * configuration without its `hash` line (nginx's round robin: any process takes any call); routed, with
 * processes that read each stream's tail (`--routing any`) and with processes that trust their caches
 * (`--routing account`). The three in turn, twice, each with processes of its own started on the same
 * store. `POST /v1.5/validate` from 8 accounts, 24 connections.
 * PostgreSQL with NGINX_BENCH_POSTGRES=URL (its own schema), else one SQLite file. Needs nginx
 * (`bash .ci/nginx.sh`).
 */
export default async function nginxBench(): Promise<BenchReport> {
  const nginx = findNginx();
  // Said rather than thrown: `npm run bench` with no names runs every bench, and the others still can.
  if (!nginx) return { title: 'nginx: not run', baseline: { name: 'nginx is not installed (bash .ci/nginx.sh)', opsPerSec: 0 }, subjects: [] };
  const dir = mkdtempSync(join(tmpdir(), 'sdp-nginx-bench-'));
  const pg = process.env.NGINX_BENCH_POSTGRES;
  const store = pg ? (pg.includes('schema=') ? pg : `${pg}${pg.includes('?') ? '&' : '?'}schema=bench_nginx_${process.pid}`) : `sqlite:${join(dir, 'nginx.db')}`;
  const kind = pg ? 'PostgreSQL' : 'SQLite';
  const args = ['--access-log', 'off', '--admin-token', TOKEN, '--store', store, '--accounts', benchAccountsFile(dir, ACCOUNTS)];
  const lines: BenchLine[] = [];
  const notes: string[] = [];
  // Round robin with processes that read each stream's tail (what `--routing any` is for); routed by
  // account, with the same processes and with processes that trust their caches (`--routing account`).
  const modes = [
    { byAccount: false, routing: 'any' },
    { byAccount: true, routing: 'any' },
    { byAccount: true, routing: 'account' },
  ] as const;
  try {
    for (const mode of [...modes, ...modes]) {
      // The first alone: on a new store it makes the tables and opens the accounts the others then find.
      const start = () => startServerProcess(process.execPath, [...SDP_SERVE, ...args, '--routing', mode.routing]);
      const first = await start();
      const servers = [first, ...(await Promise.all(Array.from({ length: PROCESSES - 1 }, start)))];
      const proxyDir = mkdtempSync(join(dir, 'nginx-'));
      const proxy = await startNginx(nginx, proxyDir, servers.map((s) => s.url.replace('http://', '')), mode.byAccount);
      try {
        await load(proxy.url, 1);
        const before = await Promise.all(servers.map((s) => attempts(s.url)));
        const r = await load(proxy.url, SECONDS);
        const after = await Promise.all(servers.map((s) => attempts(s.url)));
        const sum = (f: (a: Attempts) => number) => after.reduce((t, a, i) => t + f(a) - f(before[i]!), 0);
        const runs = sum((a) => a.runs);
        const conflicts = sum((a) => a.conflicts);
        const retries = conflicts - sum((a) => a.gave_up.conflicts);
        const name = `${kind}, ${PROCESSES} processes, ${mode.byAccount ? 'hash $sdp_account' : 'round robin'}, --routing ${mode.routing}`;
        if (r.non2xx + r.errors > 0) notes.push(`${name}: ${r.non2xx} non-2xx, ${r.errors} errors`);
        lines.push({
          name,
          opsPerSec: r.requests.average,
          extra: {
            conflicts_per_call: (conflicts / Math.max(1, runs)).toFixed(3),
            retries_per_call: (retries / Math.max(1, runs)).toFixed(3),
            per_process: after.map((a, i) => a.runs - before[i]!.runs).join('/'),
            p99_ms: r.latency.p99,
          },
        });
      } finally {
        await proxy.stop();
        await Promise.all(servers.map((s) => stopServerProcess(s.child)));
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  notes.push(`${availableParallelism()} cores shared by nginx, the ${PROCESSES} servers, the store and the load generator: read the conflicts per call, not the rates`);
  return {
    title: `nginx: ${PROCESSES} sdp serve processes on one ${kind} store, each account routed to one process against round robin (${ACCOUNTS} accounts, ${CONNECTIONS} connections, ${SECONDS} s each)`,
    baseline: lines[0]!,
    subjects: lines.slice(1),
    notes,
  };
}
