import { execFileSync, spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BenchReport } from './lib.ts';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const RUNS = Number(process.env.SDP_STARTUP_RUNS ?? 5);

/** Milliseconds from spawning `sdp serve` (memory store, free port) to its "listening on" line. */
function startUp(argv: string[]): Promise<number> {
  const started = performance.now();
  const child = spawn(process.execPath, [...argv, 'serve', '--port', '0', '--store', 'memory:', '--access-log', 'off'], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  return new Promise((ok, fail) => {
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('listening on')) {
        const ms = performance.now() - started;
        child.kill('SIGKILL');
        ok(ms);
      }
    });
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    child.on('exit', (code) => code !== null && code !== 0 && fail(new Error(`sdp serve exited ${code}: ${out}`)));
  });
}

async function median(argv: string[]): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) times.push(await startUp(argv));
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)]!;
}

/**
 * Issue 10's measures: `sdp serve` start-up from the built JavaScript (what an installed `sdp` runs)
 * beside the tsx start-up of `npm start`, as starts per second; and the packed size of every package.
 * The time from `npm install` of the tarballs to the first answer is printed by `npm run test:consumer`.
 */
export default async function packagingBench(): Promise<BenchReport> {
  // Incremental: a no-op when the build is current, so the built side is never stale.
  execFileSync('npm', ['run', 'build'], { cwd: root, stdio: 'ignore' });
  const tsx = await median(['--conditions=@sdp/source', '--import', 'tsx', 'packages/server/src/cli.ts']);
  const built = await median(['packages/server/dist/cli.js']);
  const sizes: Record<string, string> = {};
  for (const dir of readdirSync(join(root, 'packages')).sort()) {
    const [info] = JSON.parse(execFileSync('npm', ['pack', '--dry-run', '--json'], { cwd: join(root, 'packages', dir), encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] })) as { size: number; unpackedSize: number; entryCount: number }[];
    sizes[`${dir}_packed_kB`] = (info!.size / 1024).toFixed(1);
  }
  return {
    title: `packaging: sdp serve start-up (median of ${RUNS}, memory store) and packed sizes`,
    baseline: { name: 'sdp serve through tsx (npm start)', opsPerSec: 1000 / tsx, extra: { startup_ms: tsx.toFixed(0) } },
    subjects: [
      { name: 'sdp serve from built JS (installed bin)', opsPerSec: 1000 / built, extra: { startup_ms: built.toFixed(0), ...sizes } },
    ],
  };
}
