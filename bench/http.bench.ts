import { spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BenchLine, BenchReport } from './lib.ts';
import { LOAD_CONNECTIONS, SDP_SERVE, SDP_SERVE_BUILT, benchAccountsFile, buildWorkspace, hasTaskset, median, pinHelperThreads, processCpu, root, startServerProcess, stopServerProcess, validateLoad } from './server-process.ts';

const SECONDS = Number(process.env.HTTP_BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.HTTP_BENCH_ROUNDS ?? 3);
const CONNECTIONS = LOAD_CONNECTIONS;
const startProcess = (cmd: string, args: string[]) => startServerProcess(cmd, args, 0);
const stop = stopServerProcess;

interface Figures {
  rps: number;
  total: number;
  p99: number;
  non2xx: number;
  errors: number;
  cpuUs: number;
}

/** One load of `POST /v1.5/validate`; `accounts` > 1 gives each connection its own account and key. */
async function load(url: string, _pid: number, accounts: number, seconds: number): Promise<Figures> {
  const r = await validateLoad(url, accounts, seconds);
  return { rps: r.requests.average, total: r.requests.total, p99: r.latency.p99, non2xx: r.non2xx, errors: r.errors, cpuUs: NaN };
}

/** CPU seconds a process has used (user + system), or NaN where /proc is missing. */
function cpuSeconds(pid: number): number {
  const { user, system } = processCpu(pid);
  return user + system;
}

async function measured(url: string, pid: number, accounts: number): Promise<Figures> {
  const cpuBefore = cpuSeconds(pid);
  const f = await load(url, pid, accounts, SECONDS);
  // Server CPU per request: steadier than requests per second on a machine shared with other work.
  f.cpuUs = ((cpuSeconds(pid) - cpuBefore) * 1e6) / Math.max(1, f.total);
  return f;
}

interface Case {
  name: string;
  accounts: number;
  start(): Promise<{ child: ChildProcess; url: string }>;
  /** Where the server's threads other than its main one run (see `pinHelperThreads`); with it by default. */
  helpersOn?: number;
}


/**
 * Issue 16's measure: `POST /v1.5/validate` (auth, allowance, charge, filter validation, five rate
 * headers) on the project's server beside a bare node:http server, fastify with @fastify/rate-limit and
 * hono, all loaded by the same autocannon in one run. Every server is started first and idles while
 * another is loaded; the loads alternate over rounds and each figure is the median of its rounds.
 * Servers run pinned to CPU 0, the load to CPU 1.
 *
 * `HTTP_BENCH_ONLY=REGEX` keeps the cases whose names match (bare always runs); `HTTP_BENCH_BASE=DIR` adds
 * the memory server of another built checkout (log off and on) and notes, round by round, how this
 * build differs from it: on a shared machine the paired difference is steadier than two medians.
 */
export default async function httpBench(): Promise<BenchReport> {
  if (hasTaskset) spawnSync('taskset', ['-a', '-cp', '1', String(process.pid)]);
  const dir = mkdtempSync(join(tmpdir(), 'sdp-http-bench-'));
  const one = benchAccountsFile(dir, 1);
  const fifty = benchAccountsFile(dir, CONNECTIONS);
  const peer = (file: string) => () => startProcess(process.execPath, [join(root, 'bench', 'peers', file)]);
  // The `sdp` bin (installed or in a clone) and `npm start` run built JavaScript; the sources through tsx are one case, for comparison.
  buildWorkspace();
  const sdp = (store: string, accounts: string, log: boolean, serve = SDP_SERVE_BUILT) => () =>
    startProcess(process.execPath, [
      ...serve,
      '--store',
      store,
      '--accounts',
      accounts,
      '--access-log',
      log ? join(dir, `access-${Math.random().toString(36).slice(2)}.log`) : 'off',
    ]);
  const cases: Case[] = [
    { name: "bare node:http (JSON body, the project's ten headers)", accounts: 1, start: peer('bare.mjs') },
    { name: 'fastify 5 + @fastify/rate-limit', accounts: 1, start: peer('fastify.mjs') },
    { name: 'hono 4 + @hono/node-server', accounts: 1, start: peer('hono.mjs') },
    { name: 'diagnostic: node:http + engine.call (no @sdp/http, no log)', accounts: 1, start: peer('engine-direct.mjs') },
    { name: 'diagnostic: @sdp/http + engine.call (no server, no log)', accounts: 1, start: peer('http-direct.mjs') },
    { name: 'sdp memory, one account, log on', accounts: 1, start: sdp('memory:', one, true) },
    { name: 'sdp memory, one account, log off', accounts: 1, start: sdp('memory:', one, false) },
    { name: 'sdp memory, one account, log on, through tsx (the sources)', accounts: 1, start: sdp('memory:', one, true, SDP_SERVE) },
    { name: 'sdp memory, 50 accounts, log on', accounts: CONNECTIONS, start: sdp('memory:', fifty, true) },
    { name: 'sdp SQLite, one account, log on', accounts: 1, start: sdp(`sqlite:${join(dir, 'one.db')}`, one, true) },
    { name: 'sdp SQLite, 50 accounts, log on', accounts: CONNECTIONS, start: sdp(`sqlite:${join(dir, 'fifty.db')}`, fifty, true) },
    // The syncs run in libuv's pool: pinned with the event loop, every sync preempts it several times.
    { name: 'diagnostic: sdp SQLite, one account, log on, helper threads on the load\'s CPU', accounts: 1, start: sdp(`sqlite:${join(dir, 'one-apart.db')}`, one, true), helpersOn: 1 },
  ];
  // Another built checkout's server beside this one (`HTTP_BENCH_BASE=DIR`): old against new in one run.
  const base = process.env.HTTP_BENCH_BASE;
  if (base) {
    const at = (log: boolean) => sdp('memory:', one, log, [join(base, SDP_SERVE_BUILT[0]!), ...SDP_SERVE_BUILT.slice(1)]);
    cases.push({ name: `sdp memory, one account, log off, built at ${base}`, accounts: 1, start: at(false) });
    cases.push({ name: `sdp memory, one account, log on, built at ${base}`, accounts: 1, start: at(true) });
  }
  // `HTTP_BENCH_ONLY=REGEX`: only the cases whose names match (bare node:http, the baseline, always runs).
  const only = process.env.HTTP_BENCH_ONLY ? new RegExp(process.env.HTTP_BENCH_ONLY) : undefined;
  if (only) for (let i = cases.length - 1; i > 0; i--) if (!only.test(cases[i]!.name)) cases.splice(i, 1);
  const running: { child: ChildProcess; url: string }[] = [];
  const rounds: Figures[][] = cases.map(() => []);
  const notes: string[] = [];
  try {
    for (const c of cases) running.push(await c.start());
    // Warm-up: JIT, caches, the first allowance window of every account.
    for (const [i, c] of cases.entries()) {
      if (c.helpersOn !== undefined) pinHelperThreads(running[i]!.child.pid!, c.helpersOn);
      await load(running[i]!.url, running[i]!.child.pid!, c.accounts, 1);
      if (c.helpersOn !== undefined) pinHelperThreads(running[i]!.child.pid!, c.helpersOn);
    }
    for (let round = 0; round < ROUNDS; round++) {
      for (const [i, c] of cases.entries()) rounds[i]!.push(await measured(running[i]!.url, running[i]!.child.pid!, c.accounts));
    }
  } finally {
    await Promise.all(running.map((r) => stop(r.child)));
    rmSync(dir, { recursive: true, force: true });
  }
  const lines: BenchLine[] = cases.map((c, i) => {
    const rs = rounds[i]!;
    const bad = rs.reduce((n, f) => n + f.non2xx + f.errors, 0);
    if (bad > 0) notes.push(`${c.name}: ${bad} non-2xx answers or errors`);
    return {
      name: c.name,
      opsPerSec: median(rs.map((f) => f.rps)),
      extra: { p99_ms: median(rs.map((f) => f.p99)), cpu_us_per_req: median(rs.map((f) => f.cpuUs)).toFixed(1) },
    };
  });
  const named = (name: string) => lines.find((l) => l.name === name);
  const bare = lines[0]!;
  const fastify = named('fastify 5 + @fastify/rate-limit');
  const memLog = named('sdp memory, one account, log on');
  const sqliteOne = named('sdp SQLite, one account, log on');
  const sqliteApart = lines.find((l) => l.name.startsWith('diagnostic: sdp SQLite, one account, log on, helper threads'));
  const ratio = (l: BenchLine | undefined) => (l ? l.opsPerSec / bare.opsPerSec : NaN);
  notes.push(`${CONNECTIONS} connections, ${SECONDS} s per load, ${ROUNDS} alternating rounds (medians); ${hasTaskset ? 'servers on CPU 0, load on CPU 1' : 'taskset missing: processes not pinned'}`);
  notes.push(`fastify + rate-limit ratio ${ratio(fastify).toFixed(3)}; sdp memory one account log on ${ratio(memLog).toFixed(3)}; sdp SQLite one account ${ratio(sqliteOne).toFixed(3)}${sqliteApart ? ` (${ratio(sqliteApart).toFixed(3)} with its syncs' threads off the event loop's core)` : ''}`);
  const on = cases.findIndex((c) => c.name === 'sdp memory, one account, log on');
  const off = cases.findIndex((c) => c.name === 'sdp memory, one account, log off');
  if (on >= 0 && off >= 0) {
    // Round by round (the two loads moments apart), as old against new below: steadier than two medians.
    const share = median(rounds[on]!.map((f, r) => 1 - f.rps / rounds[off]![r]!.rps));
    const cpuDiff = median(rounds[on]!.map((f, r) => f.cpuUs - rounds[off]![r]!.cpuUs));
    notes.push(`the access log's cost (memory, one account, on against off): ${(share * 100).toFixed(1)} % of throughput, ${cpuDiff.toFixed(1)} µs of CPU a request (medians of ${ROUNDS} paired rounds)`);
  }
  if (base) {
    // Old against new, round by round (each pair loaded moments apart), steadier than the two medians.
    for (const log of ['off', 'on']) {
      const at = cases.findIndex((c) => c.name === `sdp memory, one account, log ${log}, built at ${base}`);
      const here = cases.findIndex((c) => c.name === `sdp memory, one account, log ${log}`);
      if (at < 0 || here < 0) continue;
      const cpuDiff = median(rounds[here]!.map((f, r) => f.cpuUs - rounds[at]![r]!.cpuUs));
      const rpsRatio = median(rounds[here]!.map((f, r) => f.rps / rounds[at]![r]!.rps));
      notes.push(`log ${log}, this build against ${base}: ${cpuDiff >= 0 ? '+' : ''}${cpuDiff.toFixed(1)} µs CPU a request, ${rpsRatio.toFixed(3)}x the requests per second (medians of ${ROUNDS} paired rounds)`);
    }
  }
  notes.push('sdp cases run the built JavaScript (the installed sdp bin), built first; one runs the sources through tsx as npm start does');
  return {
    title: 'http: POST /v1.5/validate, the project beside bare node:http and two frameworks (autocannon, same run)',
    baseline: bare,
    subjects: lines.slice(1),
    goal: {
      text: 'memory, one account, log on >= 0.75 of bare and ahead of fastify + rate-limit; SQLite one account >= 0.5; p99 <= 3x bare',
      met: !!memLog && !!fastify && ratio(memLog) >= 0.75 && memLog.opsPerSec > fastify.opsPerSec && ratio(sqliteOne) >= 0.5 && Number(memLog.extra!.p99_ms) <= 3 * Number(bare.extra!.p99_ms),
    },
    notes,
  };
}
