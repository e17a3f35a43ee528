import { execFileSync, spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BenchReport } from './lib.ts';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const RUNS = Number(process.env.SDP_STARTUP_RUNS ?? 5);

/** Milliseconds from spawning `sdp serve` (memory store, free port) to its "listening on" line. */
const SERVE = ['--port', '0', '--store', 'memory:', '--access-log', 'off'];

function startUp(command: string, argv: string[]): Promise<number> {
  const started = performance.now();
  // Its own process group, so that `npm start` goes with the server it started.
  const child = spawn(command, argv, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  return new Promise((ok, fail) => {
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('listening on')) {
        const ms = performance.now() - started;
        process.kill(-child.pid!, 'SIGKILL');
        ok(ms);
      }
    });
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    child.on('exit', (code) => code !== null && code !== 0 && fail(new Error(`sdp serve exited ${code}: ${out}`)));
  });
}

async function median(command: string, argv: string[]): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) times.push(await startUp(command, argv));
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)]!;
}

/**
 * Issue 10's measures: `sdp serve` start-up from the built JavaScript (what an installed `sdp` runs),
 * `npm start` (an incremental `tsc -b` with nothing to do, then that JavaScript: issue 26 §5) and the
 * sources through tsx (what `npx sdp` in a clone ran before issue 36), `npx sdp` in a clone now (the bin's
 * launcher: a stamp check, then that JavaScript), as starts per second; and
 * the packed size of every package.
 * The time from `npm install` of the tarballs to the first answer is printed by `npm run test:consumer`.
 */
export default async function packagingBench(): Promise<BenchReport> {
  // Incremental: a no-op when the build is current, so the built side is never stale.
  execFileSync('npm', ['run', 'build'], { cwd: root, stdio: 'ignore' });
  const tsx = await median(process.execPath, ['--conditions=@sdp/source', '--import', 'tsx', 'packages/server/src/cli.ts', 'serve', ...SERVE]);
  const built = await median(process.execPath, ['packages/server/dist/cli.js', 'serve', ...SERVE]);
  // The script says `serve` itself.
  const npmStart = await median('npm', ['start', '--', ...SERVE]);
  const launcher = await median(process.execPath, ['packages/server/bin/sdp.js', 'serve', ...SERVE]);
  const sizes: Record<string, string> = {};
  for (const dir of readdirSync(join(root, 'packages')).sort()) {
    const [info] = JSON.parse(execFileSync('npm', ['pack', '--dry-run', '--json'], { cwd: join(root, 'packages', dir), encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] })) as { size: number; unpackedSize: number; entryCount: number }[];
    sizes[`${dir}_packed_kB`] = (info!.size / 1024).toFixed(1);
  }
  return {
    title: `packaging: sdp serve start-up (median of ${RUNS}, memory store) and packed sizes`,
    baseline: { name: 'sdp serve through tsx (the sources)', opsPerSec: 1000 / tsx, extra: { startup_ms: tsx.toFixed(0) } },
    subjects: [
      { name: 'sdp serve from built JS (installed bin)', opsPerSec: 1000 / built, extra: { startup_ms: built.toFixed(0), ...sizes } },
      { name: 'npm start (tsc -b up to date, then built JS)', opsPerSec: 1000 / npmStart, extra: { startup_ms: npmStart.toFixed(0) } },
      { name: 'npx sdp serve in a clone (bin/sdp.js, stamp checked)', opsPerSec: 1000 / launcher, extra: { startup_ms: launcher.toFixed(0) } },
    ],
  };
}
