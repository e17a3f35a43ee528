import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The few autocannon options and results the HTTP benchmarks use (the package ships no types). */
export interface LoadResult {
  requests: { average: number; total: number };
  latency: { p99: number };
  non2xx: number;
  errors: number;
}
type Autocannon = (options: Record<string, unknown>) => Promise<LoadResult>;
let loaded: Autocannon | undefined;
/** autocannon, loaded at its first use: the scaling bench's bundle imports this file and brings its own. */
export const autocannon: Autocannon = (options) => (loaded ??= createRequire(import.meta.url)('autocannon') as Autocannon)(options);

export const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const hasTaskset = spawnSync('taskset', ['-V']).status === 0;

/** `sdp serve` from the workspace's sources, as `npm start` runs it, one node process (its CPU time is the server's). */
export const SDP_SERVE = ['--conditions=@sdp/source', '--import', 'tsx', 'packages/server/src/cli.ts', 'serve', '--port', '0'];

/** `sdp serve` from built JavaScript, as the installed `sdp` bin runs it (`buildWorkspace` first). */
export const SDP_SERVE_BUILT = ['packages/server/dist/cli.js', 'serve', '--port', '0'];

/** `npm run build`: incremental, so a no-op when the build is current and never stale. */
export function buildWorkspace(): void {
  execFileSync('npm', ['run', 'build'], { cwd: root, stdio: 'ignore' });
}

/**
 * Starts a server process (pinned to `cpu`, a core or a list such as `0-3`, where taskset exists) and resolves with its URL once it prints
 * `listening on`. Its pipes keep being drained, so a chatty server never blocks on them.
 */
export function startServerProcess(cmd: string, args: string[], cpu?: number | string): Promise<{ child: ChildProcess; url: string }> {
  const [c, a] = cpu !== undefined && hasTaskset ? ['taskset', ['-c', String(cpu), cmd, ...args]] : [cmd, args];
  const child = spawn(c, a, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  return new Promise((resolveStart, reject) => {
    const onOut = (d: Buffer) => {
      out += d.toString();
      const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (m) {
        child.stdout!.off('data', onOut);
        child.stdout!.resume();
        child.stderr!.resume();
        resolveStart({ child, url: m[1]! });
      }
    };
    child.stdout!.on('data', onOut);
    child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
    child.on('exit', (code) => reject(new Error(`server exited (${code}): ${out}`)));
  });
}

/**
 * Moves every thread of a server but its main one (libuv's pool, where the SQLite store's syncs run, and
 * V8's helpers) to `cpu`. A diagnostic: what sharing the event loop's one core with them costs. Threads
 * started later keep the main thread's core, so call it again once the server has warmed up.
 */
export function pinHelperThreads(pid: number, cpu: number): void {
  if (!hasTaskset) return;
  for (const tid of readdirSync(`/proc/${pid}/task`)) if (tid !== String(pid)) spawnSync('taskset', ['-pc', String(cpu), tid], { stdio: 'ignore' });
}

/** SIGTERM, then waits for the exit. */
export async function stopServerProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const done = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await done;
}

/** Connections of the validate load; also the number of accounts of the "50 accounts" cases. */
export const LOAD_CONNECTIONS = 50;
/** Account `benchN`'s key is this followed by N. */
export const BENCH_KEY = 'bench-key-00000000000000000000001';
const VALIDATE_BODY = JSON.stringify({ csdl: 'interaction.content contains "hello"' });

/** CPU seconds a process has used, user and system, or NaN where /proc is missing. */
export function processCpu(pid: number): { user: number; system: number } {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return { user: Number(fields[11]) / 100, system: Number(fields[12]) / 100 };
  } catch {
    return { user: NaN, system: NaN };
  }
}

/**
 * One load of `POST /v1.5/validate` by autocannon; `accounts` > 1 gives each connection its own account
 * and key (`benchN`), as `benchAccountsFile` opens them.
 */
export function validateLoad(url: string, accounts: number, seconds: number): Promise<LoadResult> {
  let connection = 0;
  return autocannon({
    url: url + '/v1.5/validate',
    method: 'POST',
    headers: { Authorization: `bench0:${BENCH_KEY}0`, 'Content-Type': 'application/json' },
    body: VALIDATE_BODY,
    connections: LOAD_CONNECTIONS,
    duration: seconds,
    setupClient: (client: { setHeaders(h: Record<string, string>): void }) => {
      const n = connection++ % accounts;
      client.setHeaders({ Authorization: `bench${n}:${BENCH_KEY}${n}`, 'Content-Type': 'application/json' });
    },
  });
}

/** An `--accounts` file of `n` accounts (`bench0` …) with allowances no load reaches, written in `dir`. */
export function benchAccountsFile(dir: string, n: number): string {
  const file = join(dir, `accounts-${n}.json`);
  const pkg = { credits_per_hour: 1e12, analyze_credits_per_hour: 1e12 };
  writeFileSync(file, JSON.stringify(Array.from({ length: n }, (_, i) => ({ username: `bench${i}`, api_key: `${BENCH_KEY}${i}`, package: pkg }))));
  return file;
}

export const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
