import { spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BenchLine, BenchReport } from './lib.ts';
import { LOAD_CONNECTIONS, SDP_SERVE_BUILT, benchAccountsFile, buildWorkspace, hasTaskset, median, processCpu, startServerProcess, stopServerProcess, validateLoad } from './server-process.ts';

const SECONDS = Number(process.env.HTTP_BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.HTTP_BENCH_ROUNDS ?? 3);
/** Another checkout, built, whose SQLite cases run beside this one's (old against new in one run). */
const BEFORE = process.env.SQLITE_BENCH_BEFORE;
const CONNECTIONS = LOAD_CONNECTIONS;

interface Figures {
  rps: number;
  p99: number;
  bad: number;
  cpuUs: number;
  sysUs: number;
}

async function load(url: string, pid: number, accounts: number, seconds: number): Promise<Figures> {
  const cpuBefore = processCpu(pid);
  const r = await validateLoad(url, accounts, seconds);
  // Server CPU per request: steadier than requests per second on a machine shared with other work.
  const cpuAfter = processCpu(pid);
  const per = (s: number) => (s * 1e6) / Math.max(1, r.requests.total);
  const cpuUs = per(cpuAfter.user - cpuBefore.user + cpuAfter.system - cpuBefore.system);
  return { rps: r.requests.average, p99: r.latency.p99, bad: r.non2xx + r.errors, cpuUs, sysUs: per(cpuAfter.system - cpuBefore.system) };
}

/**
 * The SQLite store's share of the http benchmark, quicker to run: `POST /v1.5/validate` on SQLite with
 * one account and with 50, beside bare node:http and the memory store (the ceiling a durable store can
 * approach), alternating rounds, servers on CPU 0 and load on CPU 1 as in `http.bench.ts`. With
 * `SQLITE_BENCH_BEFORE=DIR` (another checkout, built) its SQLite cases run in the same rounds.
 */
export default async function sqliteHttpBench(): Promise<BenchReport> {
  if (hasTaskset) spawnSync('taskset', ['-a', '-cp', '1', String(process.pid)]);
  const dir = mkdtempSync(join(tmpdir(), 'sdp-sqlite-http-bench-'));
  const one = benchAccountsFile(dir, 1);
  const fifty = benchAccountsFile(dir, CONNECTIONS);
  buildWorkspace();
  let files = 0;
  const sdp = (store: string, accounts: string, cwd?: string) => () => {
    const args = [...SDP_SERVE_BUILT, '--store', store, '--accounts', accounts, '--access-log', join(dir, `access-${files++}.log`)];
    if (cwd) args[0] = join(cwd, args[0]!);
    return startServerProcess(process.execPath, args, 0);
  };
  const db = () => `sqlite:${join(dir, `store-${files++}.db`)}`;
  const cases: { name: string; accounts: number; start(): Promise<{ child: ChildProcess; url: string }> }[] = [
    { name: "bare node:http (JSON body, the project's ten headers)", accounts: 1, start: () => startServerProcess(process.execPath, ['bench/peers/bare.mjs'], 0) },
    { name: 'sdp memory, one account, log on', accounts: 1, start: sdp('memory:', one) },
    { name: 'sdp SQLite, one account, log on', accounts: 1, start: sdp(db(), one) },
    { name: 'sdp SQLite, 50 accounts, log on', accounts: CONNECTIONS, start: sdp(db(), fifty) },
  ];
  if (BEFORE) {
    cases.push(
      { name: 'before: sdp SQLite, one account, log on', accounts: 1, start: sdp(db(), one, BEFORE) },
      { name: 'before: sdp SQLite, 50 accounts, log on', accounts: CONNECTIONS, start: sdp(db(), fifty, BEFORE) },
    );
  }
  const running: { child: ChildProcess; url: string }[] = [];
  const rounds: Figures[][] = cases.map(() => []);
  try {
    for (const c of cases) running.push(await c.start());
    for (const [i, c] of cases.entries()) await load(running[i]!.url, running[i]!.child.pid!, c.accounts, 1);
    for (let round = 0; round < ROUNDS; round++) {
      for (const [i, c] of cases.entries()) rounds[i]!.push(await load(running[i]!.url, running[i]!.child.pid!, c.accounts, SECONDS));
    }
  } finally {
    await Promise.all(running.map((r) => stopServerProcess(r.child)));
    rmSync(dir, { recursive: true, force: true });
  }
  const notes: string[] = [];
  const lines: BenchLine[] = cases.map((c, i) => {
    const bad = rounds[i]!.reduce((n, f) => n + f.bad, 0);
    if (bad > 0) notes.push(`${c.name}: ${bad} non-2xx answers or errors`);
    return { name: c.name, opsPerSec: median(rounds[i]!.map((f) => f.rps)), extra: { p99_ms: median(rounds[i]!.map((f) => f.p99)), cpu_us_per_req: median(rounds[i]!.map((f) => f.cpuUs)).toFixed(1), of_it_system: median(rounds[i]!.map((f) => f.sysUs)).toFixed(1) } };
  });
  const [bare, memory, sqliteOne, sqliteFifty] = lines as [BenchLine, BenchLine, BenchLine, BenchLine];
  const ratio = (l: BenchLine) => (l.opsPerSec / bare.opsPerSec).toFixed(3);
  notes.push(`${CONNECTIONS} connections, ${SECONDS} s per load, ${ROUNDS} alternating rounds (medians); ${hasTaskset ? 'servers on CPU 0, load on CPU 1' : 'taskset missing: processes not pinned'}`);
  notes.push(`ratios to bare: memory one account ${ratio(memory)}; SQLite one account ${ratio(sqliteOne)}; SQLite 50 accounts ${ratio(sqliteFifty)}`);
  if (BEFORE) notes.push(`before (${BEFORE}): SQLite one account ${ratio(lines[4]!)}; SQLite 50 accounts ${ratio(lines[5]!)}`);
  return {
    title: 'sqlite-http: POST /v1.5/validate on the SQLite store beside bare node:http and the memory store (autocannon, same run)',
    baseline: bare,
    subjects: lines.slice(1),
    goal: { text: 'SQLite, one account >= 0.5 of bare, every acknowledged call durable', met: sqliteOne.opsPerSec >= 0.5 * bare.opsPerSec },
    notes,
  };
}
