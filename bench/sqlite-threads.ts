/**
 * Where the SQLite server's CPU goes by thread under the http benchmark's load: `sdp serve` (built
 * JavaScript) pinned to CPU 0 as the http bench pins it, loaded by autocannon (50 connections,
 * `POST /v1.5/validate`, one account), each thread's user and system CPU µs per request read from
 * /proc (the main thread, libuv's pool where the log syncs run, V8's helpers), with the context switches
 * of each (pinned to one core, every sync in the pool preempts the event loop). With `memory` as the
 * first argument, the memory store's server under the same load, to set the store's share beside it.
 *
 *   node --conditions=@sdp/source --import tsx bench/sqlite-threads.ts [sqlite|memory] [seconds] [rounds]
 *
 * Builds the workspace first unless `SDP_NO_BUILD` is set (to run a `dist` put in place by hand, an
 * older build's store against the new one).
 *
 * Not a `*.bench.ts`: a diagnostic for issue 16 beside bench/sqlite-counters.ts.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SDP_SERVE_BUILT, benchAccountsFile, buildWorkspace, hasTaskset, median, startServerProcess, stopServerProcess, validateLoad } from './server-process.ts';

const [storeWord = 'sqlite', secondsText = '4', roundsText = '3'] = process.argv.slice(2);

interface ThreadFigures {
  user: number;
  system: number;
  /** Context switches: the thread gave up the core (waiting), or was taken off it (preempted). */
  waited: number;
  preempted: number;
}

/** Each thread's name, its user and system CPU ticks and its context switches. */
function threads(pid: number): Map<string, ThreadFigures> {
  const byName = new Map<string, ThreadFigures>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    let stat: string;
    let status: string;
    try {
      stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      status = readFileSync(`/proc/${pid}/task/${tid}/status`, 'utf8');
    } catch {
      continue;
    }
    const name = tid === String(pid) ? 'main' : stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')).replace(/[0-9]+$/, '').trim();
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const t = byName.get(name) ?? { user: 0, system: 0, waited: 0, preempted: 0 };
    t.user += Number(fields[11]);
    t.system += Number(fields[12]);
    t.waited += Number(/^voluntary_ctxt_switches:\s*(\d+)/m.exec(status)?.[1] ?? 0);
    t.preempted += Number(/^nonvoluntary_ctxt_switches:\s*(\d+)/m.exec(status)?.[1] ?? 0);
    byName.set(name, t);
  }
  return byName;
}

if (hasTaskset) spawnSync('taskset', ['-a', '-cp', '1', String(process.pid)]);
const dir = mkdtempSync(join(tmpdir(), 'sdp-sqlite-threads-'));
try {
  buildWorkspace();
  const store = storeWord === 'memory' ? 'memory:' : `sqlite:${join(dir, 'store.db')}`;
  const server = await startServerProcess(process.execPath, [...SDP_SERVE_BUILT, '--store', store, '--accounts', benchAccountsFile(dir, 1), '--access-log', join(dir, 'access.log')], 0);
  const pid = server.child.pid!;
  // taskset execs the node process in place, so the child's pid is the server's.
  await validateLoad(server.url, 1, 2);
  const rounds: Map<string, number>[] = [];
  const rps: number[] = [];
  for (let r = 0; r < Number(roundsText); r++) {
    const before = threads(pid);
    const result = await validateLoad(server.url, 1, Number(secondsText));
    const after = threads(pid);
    rps.push(result.requests.average);
    const per = new Map<string, number>();
    const us = (ticks: number) => (ticks * 1e6) / 100 / result.requests.total;
    let total = 0;
    for (const [name, t] of after) {
      const b = before.get(name) ?? { user: 0, system: 0, waited: 0, preempted: 0 };
      per.set(`${name} user`, us(t.user - b.user));
      per.set(`${name} system`, us(t.system - b.system));
      per.set(`${name} switches waiting`, (t.waited - b.waited) / result.requests.total);
      per.set(`${name} switches preempted`, (t.preempted - b.preempted) / result.requests.total);
      total += us(t.user - b.user + t.system - b.system);
    }
    per.set('total', total);
    rounds.push(per);
  }
  await stopServerProcess(server.child);
  console.log(`${storeWord}: ${Math.round(median(rps))} req/s (median of ${rps.length}); CPU µs and context switches per request by thread (medians):`);
  for (const key of rounds[0]!.keys()) {
    const m = median(rounds.map((r) => r.get(key) ?? 0));
    if (key.includes('switches')) {
      if (m >= 0.001) console.log(`  ${m.toFixed(3).padStart(6)}  ${key}`);
    } else if (m > 0.05 || key === 'total') console.log(`  ${m.toFixed(2).padStart(6)}  ${key}`);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
