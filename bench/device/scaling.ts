/**
 * Issue 27's scaling goals, measured as the issue measured them: the built server (`sdp serve --workers W`,
 * each process on its own cores) under `POST /v1.5/validate` from load processes pinned to other cores
 * (autocannon, 12 connections each, each connection one account's), 5 s a load, for W = 1, 2, 4, 8, on
 * SQLite; then one account shared by every worker. It runs from the bundle `bench/device/build.ts` makes
 * (`node scaling.mjs`, nothing installed but node), or from the sources (`npm run bench:scaling`).
 *
 * Settings (environment): SCALING_WORKERS (`1,2,4,8`), SCALING_SECONDS (5), SCALING_LOADERS (8),
 * SCALING_CONNECTIONS (12 a loader), SCALING_ACCOUNTS (8), SCALING_SDP (how to start the server: the
 * bundle's `sdp.mjs` beside this file, else the sources through tsx). Cores: the server gets cores 0 to
 * W-1 (taskset, where it exists), the loaders the last cores of the machine, one each. Prints a table and,
 * where OUT is set, writes `$OUT/scaling.json`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { hasTaskset, startServerProcess, stopServerProcess } from '../server-process.ts';
import { workerAttempts } from '../worker-attempts.ts';

interface LoadResult {
  requests: { average: number; total: number };
  latency: { p99: number };
  non2xx: number;
  errors: number;
}

const here = dirname(fileURLToPath(import.meta.url));
const KEY = 'scaling-key-0000000000000000000001';
const ADMIN = 'scaling-admin-token';

/** `node scaling.mjs load URL CONNECTIONS SECONDS FIRST_ACCOUNT ACCOUNTS`: one load process. */
async function loadRole(args: string[]): Promise<void> {
  const [url, connections, seconds, first, accounts] = args;
  const autocannon = (await import('autocannon')).default as unknown as (o: Record<string, unknown>) => Promise<LoadResult>;
  let connection = 0;
  const result = await autocannon({
    url: `${url}/v1.5/validate`,
    method: 'POST',
    body: JSON.stringify({ csdl: 'interaction.content contains "hello"' }),
    connections: Number(connections),
    duration: Number(seconds),
    setupClient: (client: { setHeaders(h: Record<string, string>): void }) => {
      const n = Number(first) + (connection++ % Number(accounts));
      client.setHeaders({ Authorization: `scaling${n}:${KEY}`, 'Content-Type': 'application/json' });
    },
  });
  process.stdout.write(JSON.stringify({ average: result.requests.average, total: result.requests.total, p99: result.latency.p99, non2xx: result.non2xx, errors: result.errors }) + '\n');
}

/** How this file starts the server: the bundle's `sdp.mjs` beside it, else the sources through tsx. */
function sdpCommand(): string[] {
  if (process.env.SCALING_SDP) return process.env.SCALING_SDP.split(' ');
  const bundled = join(here, 'sdp.mjs');
  if (existsSync(bundled)) return [process.execPath, bundled];
  return [process.execPath, '--conditions=@sdp/source', '--import', 'tsx', join(here, '../../packages/server/src/cli.ts')];
}

function pinned(cores: string, command: string[]): [string, string[]] {
  return hasTaskset ? ['taskset', ['-c', cores, ...command]] : [command[0]!, command.slice(1)];
}

function startServer(workers: number, store: string, accountsFile: string, cores: string): Promise<{ child: ChildProcess; url: string }> {
  const [cmd, ...args] = [...sdpCommand(), 'serve', '--port', '0', '--access-log', 'off', '--admin-token', ADMIN, '--store', store, '--accounts', accountsFile, ...(workers > 1 ? ['--workers', String(workers)] : [])];
  return startServerProcess(cmd!, args, cores);
}

/** `loaders` load processes at once, each on a core of its own from the top of the machine. */
async function load(url: string, loaders: number, connections: number, seconds: number, accounts: number): Promise<{ rps: number; p99: number; non2xx: number; errors: number }> {
  const cores = availableParallelism();
  const runs = Array.from({ length: loaders }, (_, i) => {
    // Each loader's connections cover the accounts in turn, starting where the last one's left off.
    const command = [process.execPath, ...process.execArgv, fileURLToPath(import.meta.url), 'load', url, String(connections), String(seconds), String((i * connections) % accounts), String(accounts)];
    const [cmd, args] = pinned(String(Math.max(0, cores - 1 - i)), command);
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    return new Promise<{ average: number; p99: number; non2xx: number; errors: number }>((resolve, reject) =>
      child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out) as { average: number; p99: number; non2xx: number; errors: number }) : reject(new Error(`load process exited ${code}`)))),
    );
  });
  const results = await Promise.all(runs);
  return {
    rps: results.reduce((s, r) => s + r.average, 0),
    p99: Math.max(...results.map((r) => r.p99)),
    non2xx: results.reduce((s, r) => s + r.non2xx, 0),
    errors: results.reduce((s, r) => s + r.errors, 0),
  };
}

async function main(): Promise<void> {
  const workerCounts = (process.env.SCALING_WORKERS ?? '1,2,4,8').split(',').map(Number);
  const seconds = Number(process.env.SCALING_SECONDS ?? 5);
  const loaders = Number(process.env.SCALING_LOADERS ?? 8);
  const connections = Number(process.env.SCALING_CONNECTIONS ?? 12);
  const accounts = Number(process.env.SCALING_ACCOUNTS ?? 8);
  const dir = mkdtempSync(join(tmpdir(), 'sdp-scaling-'));
  const accountsFile = join(dir, 'accounts.json');
  writeFileSync(accountsFile, JSON.stringify(Array.from({ length: Math.max(accounts, 1) }, (_, i) => ({ username: `scaling${i}`, api_key: KEY, package: { credits_per_hour: 1e12, analyze_credits_per_hour: 1e12 } }))));
  const lines: Record<string, unknown>[] = [];
  try {
    for (const [label, users] of [[`${accounts} accounts`, accounts], ['one account', 1]] as const) {
      for (const w of workerCounts) {
        const s = await startServer(w, `sqlite:${join(dir, `w${w}-${users}.db`)}`, accountsFile, `0-${w - 1}`);
        try {
          await load(s.url, 1, 4, 1, users);
          const before = await workerAttempts(s.url, w, ADMIN);
          const r = await load(s.url, loaders, connections, seconds, users);
          const after = await workerAttempts(s.url, w, ADMIN);
          const runs = after.runs - before.runs;
          lines.push({ case: `SQLite, ${label}, --workers ${w}`, workers: w, rps: Math.round(r.rps), p99_ms: r.p99, non2xx: r.non2xx, errors: r.errors, conflicts_per_call: runs > 0 ? (after.conflicts - before.conflicts) / runs : 0 });
        } finally {
          await stopServerProcess(s.child);
        }
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const one = (label: string) => lines.find((l) => l.case === `SQLite, ${label}, --workers 1`)?.rps as number | undefined;
  console.log(`cores ${availableParallelism()}, taskset ${hasTaskset ? 'yes' : 'no'}; ${loaders} loaders x ${connections} connections, ${seconds} s`);
  for (const l of lines) {
    const base = one(String(l.case).split(', ')[1]!);
    console.log(`${String(l.case).padEnd(36)} ${String(l.rps).padStart(8)} req/s ${base ? `${((l.rps as number) / base).toFixed(2)}x` : ''}  p99 ${l.p99_ms} ms  non-2xx ${l.non2xx}  conflicts/call ${(l.conflicts_per_call as number).toFixed(3)}`);
  }
  if (process.env.OUT) writeFileSync(join(process.env.OUT, 'scaling.json'), JSON.stringify({ cores: availableParallelism(), taskset: hasTaskset, loaders, connections, seconds, lines }, null, 2));
}

if (process.argv[2] === 'load') await loadRole(process.argv.slice(3));
else await main();
