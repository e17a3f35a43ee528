import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BenchLine, BenchReport } from './lib.ts';
import { BENCH_KEY, SDP_SERVE, benchAccountsFile, hasTaskset, median, processCpu, root, startServerProcess, stopServerProcess } from './server-process.ts';

const SECONDS = Number(process.env.OPENAPI_BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.OPENAPI_BENCH_ROUNDS ?? 2);
/** The flooding client's keep-alive sockets (issue 35's report). */
const FLOOD_CONNECTIONS = 16;
/** The other tenant: a few connections of ordinary calls, whose latency is the figure. */
const TENANT_CONNECTIONS = 4;
const VALIDATE_BODY = JSON.stringify({ csdl: 'interaction.content contains "hello"' });

interface Figures {
  p50: number;
  p99: number;
  rps: number;
  floodRps: number;
  floodMBps: number;
  serverCpu: number;
}

interface FloodCase {
  name: string;
  /** Headers of every flood request; null: no flood. */
  headers: Record<string, string> | null;
}

/**
 * The flood runs in its own process: parsing 300 KB answers at a thousand a second in the measuring
 * process would delay its own reading of the tenant's answers and count as the server's latency.
 */
function flood(url: string, headers: Record<string, string>, seconds: number): Promise<{ rps: number; bytesPerSec: number }> {
  const bin = createRequire(import.meta.url).resolve('autocannon/autocannon.js');
  const args = [bin, '-c', String(FLOOD_CONNECTIONS), '-d', String(seconds), '-j', ...Object.entries(headers).flatMap(([k, v]) => ['-H', `${k}:${v}`]), url];
  const [cmd, argv] = hasTaskset ? ['taskset', ['-c', '1', process.execPath, ...args]] : [process.execPath, args];
  const child = spawn(cmd, argv, { cwd: root, stdio: ['ignore', 'pipe', 'ignore'] });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  return new Promise((resolve, reject) => {
    child.on('exit', (code) => {
      try {
        const r = JSON.parse(out) as { requests: { average: number }; throughput: { average: number } };
        resolve({ rps: r.requests.average, bytesPerSec: r.throughput.average });
      } catch {
        reject(new Error(`flood client exited ${code} without a result: ${out.slice(0, 300)}`));
      }
    });
  });
}

type Tracker = PromiseLike<{ requests: { average: number }; non2xx: number; errors: number }> & {
  on(event: 'response', listener: (client: unknown, status: number, bytes: number, ms: number) => void): void;
};
const loadTracked = (options: Record<string, unknown>): Tracker => (createRequire(import.meta.url)('autocannon') as (o: Record<string, unknown>) => Tracker)(options);

/** The tenant's load; its latencies are kept from each answer, as autocannon's own histogram rounds them to whole milliseconds. */
async function tenant(url: string, seconds: number): Promise<{ p50: number; p99: number; rps: number; bad: number }> {
  const tracker = loadTracked({
    url: url + '/v1.5/validate',
    method: 'POST',
    headers: { Authorization: `bench0:${BENCH_KEY}0`, 'Content-Type': 'application/json' },
    body: VALIDATE_BODY,
    connections: TENANT_CONNECTIONS,
    duration: seconds,
  });
  const ms: number[] = [];
  tracker.on('response', (_client, status, _bytes, took) => {
    if (status < 300) ms.push(took);
  });
  const r = await tracker;
  ms.sort((a, b) => a - b);
  const at = (q: number) => (ms.length ? Math.round(ms[Math.min(ms.length - 1, Math.floor(q * ms.length))]! * 100) / 100 : NaN);
  return { p50: at(0.5), p99: at(0.99), rps: r.requests.average, bad: r.non2xx + r.errors };
}

/** One case: the flood (if any) started first and running past both ends of the tenant's load. */
async function measured(url: string, pid: number, c: FloodCase): Promise<Figures & { bad: number }> {
  const flooding = c.headers ? flood(url + '/openapi.json', c.headers, SECONDS + 2) : undefined;
  if (flooding) await new Promise((r) => setTimeout(r, 1000));
  const cpu = processCpu(pid);
  const t = await tenant(url, SECONDS);
  const after = processCpu(pid);
  const f = flooding ? await flooding : { rps: 0, bytesPerSec: 0 };
  return { ...t, floodRps: f.rps, floodMBps: f.bytesPerSec / 1e6, serverCpu: (after.user + after.system - cpu.user - cpu.system) / SECONDS };
}

/**
 * Issue 35's "free answers cost nearly nothing": another tenant's `POST /v1.5/validate` (4 connections)
 * alone, then while one client floods `GET /openapi.json` over 16 keep-alive sockets: without
 * `Accept-Encoding`, with `gzip`, with `br`, and revalidating with the `ETag` it was given (where the
 * server gives one). The server (sources through tsx, memory store, no access log) runs on CPU 0, both
 * clients on CPU 1; the cases alternate over rounds, each figure the median of its rounds.
 */
export default async function openApiFloodBench(): Promise<BenchReport> {
  if (hasTaskset) spawnSync('taskset', ['-a', '-cp', '1', String(process.pid)]);
  const dir = mkdtempSync(join(tmpdir(), 'sdp-openapi-bench-'));
  const accounts = benchAccountsFile(dir, 1);
  const { child, url } = await startServerProcess(process.execPath, [...SDP_SERVE, '--store', 'memory:', '--accounts', accounts, '--access-log', 'off'], 0);
  const notes: string[] = [];
  const rounds: Figures[][] = [];
  let cases: FloodCase[] = [];
  try {
    const first = await fetch(url + '/openapi.json', { headers: { 'Accept-Encoding': 'identity' } });
    const size = (await first.arrayBuffer()).byteLength;
    const etag = first.headers.get('etag');
    cases = [
      { name: 'validate alone', headers: null },
      { name: 'validate, flood of /openapi.json without Accept-Encoding', headers: {} },
      { name: 'validate, flood of /openapi.json with Accept-Encoding: gzip', headers: { 'Accept-Encoding': 'gzip' } },
      { name: 'validate, flood of /openapi.json with Accept-Encoding: br', headers: { 'Accept-Encoding': 'br' } },
      ...(etag ? [{ name: 'validate, flood of /openapi.json with If-None-Match (304)', headers: { 'If-None-Match': etag } }] : []),
    ];
    notes.push(`/openapi.json: ${size} bytes as identity; ETag ${etag ?? 'none'}`);
    // Warm-up: JIT, the document's bytes and their compressed forms, the tenant's allowance window.
    for (const c of cases) if (c.headers) await fetch(url + '/openapi.json', { headers: c.headers });
    await tenant(url, 1);
    for (let i = 0; i < cases.length; i++) rounds.push([]);
    for (let round = 0; round < ROUNDS; round++) {
      for (const [i, c] of cases.entries()) {
        const f = await measured(url, child.pid!, c);
        if (f.bad > 0) notes.push(`${c.name}, round ${round + 1}: ${f.bad} non-2xx answers or errors`);
        rounds[i]!.push(f);
      }
    }
  } finally {
    await stopServerProcess(child);
    rmSync(dir, { recursive: true, force: true });
  }
  const lines: BenchLine[] = cases.map((c, i) => {
    const rs = rounds[i]!;
    const m = (pick: (f: Figures) => number) => median(rs.map(pick));
    return {
      name: c.name,
      opsPerSec: m((f) => f.rps),
      extra: {
        p50_ms: m((f) => f.p50),
        p99_ms: m((f) => f.p99),
        flood_rps: Math.round(m((f) => f.floodRps)),
        flood_MB_s: m((f) => f.floodMBps).toFixed(1),
        server_cpu: m((f) => f.serverCpu).toFixed(2),
      },
    };
  });
  notes.push(`tenant ${TENANT_CONNECTIONS} connections, flood ${FLOOD_CONNECTIONS} keep-alive connections, ${SECONDS} s per load, ${ROUNDS} alternating rounds (medians); ${hasTaskset ? 'server on CPU 0, both clients on CPU 1' : 'taskset missing: processes not pinned'}; server_cpu is the server's CPU seconds per second`);
  const alone = lines[0]!;
  const worst = Math.max(...lines.slice(1).map((l) => Number(l.extra!.p50_ms)));
  return {
    title: 'openapi-flood: another tenant\'s POST /v1.5/validate while one client floods GET /openapi.json',
    baseline: alone,
    subjects: lines.slice(1),
    goal: { text: 'the tenant\'s p50 under any flood within 2x its p50 alone (and at most 2 ms more)', met: worst <= Math.max(2 * Number(alone.extra!.p50_ms), Number(alone.extra!.p50_ms) + 2) },
    notes,
  };
}
