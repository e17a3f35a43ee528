import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import { MemoryEventStore, createEngine, seededIds } from '@sdp/core';
import type { BenchLine, BenchReport } from './lib.ts';

/** The few autocannon options and results used here (the package ships no types). */
interface LoadResult {
  requests: { average: number; total: number };
  latency: { p99: number };
  non2xx: number;
  errors: number;
}
const autocannon = createRequire(import.meta.url)('autocannon') as (options: Record<string, unknown>) => Promise<LoadResult>;

/**
 * Issue 5's measure: requests per second of the project's server answering `POST /v1.5/validate` (auth,
 * allowance, charge, filter validation, headers) beside a bare `node:http` server answering a small JSON
 * body, loaded by the same autocannon in the same run. Each server runs in its own process pinned to one
 * core, the load generator on the other.
 */
const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const SECONDS = Number(process.env.HTTP_BENCH_SECONDS ?? 6);
const CONNECTIONS = 16;
const KEY = 'bench-key-00000000000000000000001';
const hasTaskset = spawnSync('taskset', ['-V']).status === 0;
const pinned = (cpu: number, cmd: string, args: string[]): [string, string[]] => (hasTaskset ? ['taskset', ['-c', String(cpu), cmd, ...args]] : [cmd, args]);

const BARE = `
const http = require('node:http');
const body = JSON.stringify({ created_at: '2026-03-02 08:05:37', dpu: '0.1' });
const s = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => { res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(body) }); res.end(body); });
});
s.listen(0, '127.0.0.1', () => console.log('listening on http://127.0.0.1:' + s.address().port));
`;

function startProcess(cmd: string, args: string[]): Promise<{ child: ChildProcess; url: string }> {
  const [c, a] = pinned(0, cmd, args);
  const child = spawn(c, a, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  return new Promise((resolveStart, reject) => {
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (m) resolveStart({ child, url: m[1]! });
    });
    child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
    child.on('exit', (code) => reject(new Error(`server exited (${code}): ${out}`)));
  });
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const done = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await done;
}

interface Load {
  method: 'GET' | 'POST';
  path: string;
  headers: Record<string, string>;
  body?: string | undefined;
}

/** CPU seconds a process has used (user + system), or NaN where /proc is missing. */
function cpuSeconds(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return NaN;
  }
}

async function load(url: string, request: Load, pid: number): Promise<{ rps: number; p99: number; non2xx: number; errors: number; cpuUs: number }> {
  let connection = 0;
  const run = (duration: number) =>
    autocannon({
      url: url + request.path,
      method: request.method,
      headers: request.headers,
      ...(request.body ? { body: request.body } : {}),
      connections: CONNECTIONS,
      duration,
      // Each connection is its own account, as with many clients: one account's calls run one at a time.
      setupClient: (client: { setHeaders(h: Record<string, string>): void }) => {
        if (request.headers.Authorization) client.setHeaders({ ...request.headers, Authorization: `bench${connection++ % CONNECTIONS}:${KEY}` });
      },
    });
  await run(1); // warm-up: JIT, caches, the first allowance window
  const cpuBefore = cpuSeconds(pid);
  const r = await run(SECONDS);
  // Server CPU per request: steadier than requests per second on a machine shared with other work.
  const cpuUs = ((cpuSeconds(pid) - cpuBefore) * 1e6) / Math.max(1, r.requests.total);
  return { rps: r.requests.average, p99: r.latency.p99, non2xx: r.non2xx, errors: r.errors, cpuUs };
}

export default async function httpBench(): Promise<BenchReport> {
  if (hasTaskset) spawnSync('taskset', ['-a', '-cp', '1', String(process.pid)]);
  const dir = mkdtempSync(join(tmpdir(), 'sdp-http-bench-'));
  const accounts = join(dir, 'accounts.json');
  const pkg = { credits_per_hour: 1e12, analyze_credits_per_hour: 1e12 };
  writeFileSync(accounts, JSON.stringify(Array.from({ length: CONNECTIONS }, (_, i) => ({ username: `bench${i}`, api_key: KEY, package: pkg }))));

  // The filter validation endpoint is the subject; if nobody has built it yet, measure a built read.
  const probe = createEngine({ store: new MemoryEventStore(), clock: { now: () => 0 }, ids: seededIds(1) });
  const validate = probe.handles('core.validate');
  const subject: Load = validate
    ? { method: 'POST' as const, path: '/v1.5/validate', headers: { Authorization: `bench0:${KEY}`, 'Content-Type': 'application/json' }, body: JSON.stringify({ csdl: 'interaction.content contains "hello"' }) }
    : { method: 'GET' as const, path: '/v1.5/account/identity', headers: { Authorization: `bench0:${KEY}` } };

  const lines: BenchLine[] = [];
  const notes: string[] = [];
  try {
    const bare = await startProcess(process.execPath, ['-e', BARE]);
    const bareFigures = await load(bare.url, { method: 'POST', path: '/', headers: { 'Content-Type': 'application/json' }, body: subject.body ?? '' }, bare.child.pid!);
    await stop(bare.child);
    lines.push({ name: 'bare node:http, small JSON body', opsPerSec: bareFigures.rps, extra: { p99_ms: bareFigures.p99, cpu_us_per_req: bareFigures.cpuUs.toFixed(1) } });

    for (const [label, store] of [['memory', 'memory:'], ['sqlite', `sqlite:${join(dir, 'bench.db')}`]] as const) {
      // `node --import tsx` rather than the tsx wrapper: one process, so its CPU time is the server's.
      const server = await startProcess(process.execPath, ['--import', 'tsx', 'packages/server/src/cli.ts', 'serve', '--port', '0', '--store', store, '--accounts', accounts, '--access-log', 'off']);
      const f = await load(server.url, subject, server.child.pid!);
      await stop(server.child);
      if (f.non2xx > 0 || f.errors > 0) notes.push(`${label}: ${f.non2xx} non-2xx answers, ${f.errors} errors`);
      lines.push({
        name: `sdp ${subject.method} ${subject.path} (${label} store, full path)`,
        opsPerSec: f.rps,
        extra: { p99_ms: f.p99, ratio: (f.rps / bareFigures.rps).toFixed(3), cpu_us_per_req: f.cpuUs.toFixed(1) },
      });
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const [baseline, memory, sqlite] = lines as [BenchLine, BenchLine, BenchLine];
  const memRatio = memory.opsPerSec / baseline.opsPerSec;
  const sqlRatio = sqlite.opsPerSec / baseline.opsPerSec;
  if (!validate) notes.push('core.validate has no handler yet: measured GET /v1.5/account/identity instead');
  notes.push(`${CONNECTIONS} connections, one account each, ${SECONDS} s each after a 1 s warm-up; ${hasTaskset ? 'servers on CPU 0, load on CPU 1' : 'taskset missing: processes not pinned'}; access log off`);
  return {
    title: 'http: full request path against a bare node:http server (autocannon, same run)',
    baseline,
    subjects: [memory, sqlite],
    goal: { text: 'memory >= 0.75 and SQLite >= 0.5 of the bare server', met: memRatio >= 0.75 && sqlRatio >= 0.5 },
    notes,
  };
}
