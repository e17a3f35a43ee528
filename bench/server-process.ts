import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The few autocannon options and results the HTTP benchmarks use (the package ships no types). */
export interface LoadResult {
  requests: { average: number; total: number };
  latency: { p99: number };
  non2xx: number;
  errors: number;
}
export const autocannon = createRequire(import.meta.url)('autocannon') as (options: Record<string, unknown>) => Promise<LoadResult>;

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
 * Starts a server process (pinned to `cpu` where taskset exists) and resolves with its URL once it prints
 * `listening on`. Its pipes keep being drained, so a chatty server never blocks on them.
 */
export function startServerProcess(cmd: string, args: string[], cpu?: number): Promise<{ child: ChildProcess; url: string }> {
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

/** SIGTERM, then waits for the exit. */
export async function stopServerProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const done = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await done;
}
