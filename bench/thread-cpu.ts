/**
 * Where a server's CPU goes by thread (the main thread, libuv's pool, V8's helpers) under the ratchet's
 * load: each build's `sdp serve` in turn, rounds alternating, µs per request of each thread name.
 *
 *   node --conditions=@sdp/source --import tsx bench/thread-cpu.ts memory|sqlite BUILD_DIR... [--rounds N]
 *
 * The ratchet's HTTP rows count the whole process; this says which thread a difference between two builds
 * lies in (a profile samples the main thread only).
 */
import { readdirSync, readFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { benchAccountsFile, startServerProcess, stopServerProcess, validateLoad } from './server-process.ts';

const args = process.argv.slice(2);
const roundsAt = args.indexOf('--rounds');
const rounds = roundsAt >= 0 ? Number(args.splice(roundsAt, 2)[1]) : 3;
const [storeWord = 'sqlite', ...builds] = args;
if (builds.length === 0) throw new Error('usage: thread-cpu.ts memory|sqlite BUILD_DIR...');
const TICK_US = 1e6 / 100;

/** CPU ticks by thread name (`comm`), summed over threads of one name. */
function threads(pid: number): Map<string, number> {
  const out = new Map<string, number>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
    const close = stat.lastIndexOf(')');
    // Every thread of node is named `node`: the main thread is told by its id, the others by their name.
    const comm = stat.slice(stat.indexOf('(') + 1, close).replace(/[0-9]+$/, '#');
    const name = tid === String(pid) ? 'main' : `other (${comm})`;
    const f = stat.slice(close + 2).split(' ');
    out.set(name, (out.get(name) ?? 0) + Number(f[11]) + Number(f[12]));
  }
  return out;
}

const dir = mkdtempSync(join(tmpdir(), 'sdp-thread-cpu-'));
try {
  const servers = [];
  for (const [i, build] of builds.entries()) {
    const store = storeWord === 'sqlite' ? `sqlite:${join(dir, `${i}.db`)}` : 'memory:';
    const s = await startServerProcess(process.execPath, [join(resolve(build), 'packages', 'server', 'dist', 'cli.js'), 'serve', '--port', '0', '--store', store, '--accounts', benchAccountsFile(dir, 1), '--access-log', join(dir, `access-${i}.log`)], 0);
    await validateLoad(s.url, 1, 2);
    servers.push(s);
  }
  const totals = builds.map(() => new Map<string, number[]>());
  for (let r = 0; r < rounds; r++) {
    for (let k = 0; k < builds.length; k++) {
      const i = r % 2 === 0 ? k : builds.length - 1 - k;
      const s = servers[i]!;
      const before = threads(s.child.pid!);
      const load = await validateLoad(s.url, 1, 3);
      const after = threads(s.child.pid!);
      for (const [name, t] of after) {
        const list = totals[i]!.get(name) ?? [];
        list.push(((t - (before.get(name) ?? 0)) * TICK_US) / load.requests.total);
        totals[i]!.set(name, list);
      }
    }
  }
  const names = [...new Set(totals.flatMap((m) => [...m.keys()]))];
  const med = (xs: number[] = []) => (xs.length ? [...xs].sort((a, b) => a - b)[xs.length >> 1]! : 0);
  console.log(`| thread | ${builds.join(' | ')} |`);
  for (const name of names) console.log(`| ${name} | ${totals.map((m) => med(m.get(name)).toFixed(2)).join(' | ')} |`);
  console.log(`| all | ${totals.map((m) => [...m.values()].reduce((a, xs) => a + med(xs), 0).toFixed(2)).join(' | ')} |`);
  await Promise.all(servers.map((s) => stopServerProcess(s.child)));
} finally {
  rmSync(dir, { recursive: true, force: true });
}
