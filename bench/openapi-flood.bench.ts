import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
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

/** A server under test: this checkout's, or another extracted tree's (`OPENAPI_BENCH_BASE`). */
interface Subject {
  label: string;
  url: string;
  pid: number;
  cases: FloodCase[];
}

/**
 * Issue 35's "free answers cost nearly nothing": another tenant's `POST /v1.5/validate` (4 connections)
 * alone, then while one client floods `GET /openapi.json` over 16 keep-alive sockets: without
 * `Accept-Encoding`, with `gzip`, with `br`, and revalidating with the `ETag` it was given (where the
 * server gives one). The server (sources through tsx, memory store, no access log) runs on CPU 0, both
 * clients on CPU 1; the cases alternate over rounds, each figure the median of its rounds.
 *
 * `OPENAPI_BENCH_BASE=DIR` also starts the server of another tree (e.g. the commit before, extracted with
 * `git archive` and given this checkout's node_modules, its `@sdp/*` links pointing into it) and runs its
 * cases in the same rounds: on a shared machine only figures taken side by side compare.
 */
export default async function openApiFloodBench(): Promise<BenchReport> {
  if (hasTaskset) spawnSync('taskset', ['-a', '-cp', '1', String(process.pid)]);
  const dir = mkdtempSync(join(tmpdir(), 'sdp-openapi-bench-'));
  const accounts = benchAccountsFile(dir, 1);
  const base = process.env.OPENAPI_BENCH_BASE;
  const serveArgs = ['--store', 'memory:', '--accounts', accounts, '--access-log', 'off'];
  const trees = [{ label: 'this build', cli: SDP_SERVE }, ...(base ? [{ label: `base ${base}`, cli: SDP_SERVE.map((a) => (a === 'packages/server/src/cli.ts' ? join(base, a) : a)) }] : [])];
  const children: ChildProcess[] = [];
  const notes: string[] = [];
  const subjects: Subject[] = [];
  const rounds = new Map<string, Figures[]>();
  try {
    for (const tree of trees) {
      const { child, url } = await startServerProcess(process.execPath, [...tree.cli, ...serveArgs], 0);
      children.push(child);
      const first = await fetch(url + '/openapi.json', { headers: { 'Accept-Encoding': 'identity' } });
      const size = (await first.arrayBuffer()).byteLength;
      const etag = first.headers.get('etag');
      notes.push(`${tree.label}: /openapi.json ${size} bytes as identity; ETag ${etag ?? 'none'}`);
      const cases: FloodCase[] = [
        { name: 'validate alone', headers: null },
        { name: 'flood without Accept-Encoding', headers: {} },
        { name: 'flood with Accept-Encoding: gzip', headers: { 'Accept-Encoding': 'gzip' } },
        { name: 'flood with Accept-Encoding: br', headers: { 'Accept-Encoding': 'br' } },
        ...(etag ? [{ name: 'flood with If-None-Match (304)', headers: { 'If-None-Match': etag } }] : []),
      ];
      subjects.push({ label: tree.label, url, pid: child.pid!, cases });
      // Warm-up: JIT, the document's bytes and their compressed forms, the tenant's allowance window.
      for (const c of cases) if (c.headers) await fetch(url + '/openapi.json', { headers: c.headers });
      await tenant(url, 1);
    }
    for (let round = 0; round < ROUNDS; round++) {
      for (const [i] of subjects[0]!.cases.entries()) {
        for (const s of subjects) {
          const c = s.cases[i];
          if (!c) continue;
          const f = await measured(s.url, s.pid, c);
          const key = `${s.label}: ${c.name}`;
          if (f.bad > 0) notes.push(`${key}, round ${round + 1}: ${f.bad} non-2xx answers or errors`);
          rounds.set(key, [...(rounds.get(key) ?? []), f]);
        }
      }
    }
  } finally {
    await Promise.all(children.map(stopServerProcess));
    rmSync(dir, { recursive: true, force: true });
  }
  const lines: BenchLine[] = [...rounds].map(([name, rs]) => {
    const m = (pick: (f: Figures) => number) => median(rs.map(pick));
    const extra: Record<string, string | number> = {
      p50_ms: m((f) => f.p50).toFixed(2),
      p99_ms: m((f) => f.p99).toFixed(2),
      flood_rps: Math.round(m((f) => f.floodRps)),
      flood_MB_s: m((f) => f.floodMBps).toFixed(1),
      server_cpu: m((f) => f.serverCpu).toFixed(2),
    };
    // What one flood request costs the server: its CPU less the tenant's calls at their cost alone.
    const alone = rounds.get(name.replace(/: .*$/, ': validate alone'));
    if (alone && alone !== rs) {
      const perCall = median(alone.map((f) => f.serverCpu / f.rps));
      extra.flood_cpu_us = Math.round(median(rs.map((f) => ((f.serverCpu - f.rps * perCall) / f.floodRps) * 1e6)));
    }
    return { name, opsPerSec: m((f) => f.rps), extra };
  });
  notes.push(`tenant ${TENANT_CONNECTIONS} connections, flood ${FLOOD_CONNECTIONS} keep-alive connections, ${SECONDS} s per load, ${ROUNDS} alternating rounds (medians); ${hasTaskset ? 'servers on CPU 0, both clients on CPU 1' : 'taskset missing: processes not pinned'}; server_cpu is the server's CPU seconds per second, flood_cpu_us its CPU per flood request (less the tenant's calls at their cost alone)`);
  const mine = lines.filter((l) => l.name.startsWith('this build: '));
  const alone = mine[0]!;
  const worst = Math.max(...mine.slice(1).map((l) => Number(l.extra!.p50_ms)));
  return {
    title: 'openapi-flood: another tenant\'s POST /v1.5/validate while one client floods GET /openapi.json',
    baseline: alone,
    subjects: lines.filter((l) => l !== alone),
    goal: { text: 'this build: the tenant\'s p50 under any flood within 2x its p50 alone, or at most 2 ms more', met: worst <= Math.max(2 * Number(alone.extra!.p50_ms), Number(alone.extra!.p50_ms) + 2) },
    notes,
  };
}
