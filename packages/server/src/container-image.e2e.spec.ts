import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCurl } from '../test/curl-command.ts';
import { listeningUrl } from '../test/listening-url.ts';

/**
 * The image `.ci/container.sh` built, run as a user runs it: the printed curl line answers, the store
 * outlives the container on its volume, and SIGTERM stops it cleanly. The script leaves the image's name
 * (and the podman flags this machine needs) in STATE, or the reason it could not build one here.
 */
const root = join(import.meta.dirname, '../../..');
const STATE = join(root, 'node_modules/.cache/sdp/container-image.json');

interface Built {
  image: string;
  /** podman's global flags, e.g. `--cgroup-manager cgroupfs`, and `run`'s, e.g. `--ulimit`. */
  podman: string[];
  run: string[];
}

/** The built image, or why there is none to test: a machine that cannot run containers skips, CI included. */
function builtImage(): Built | { skip: string } {
  if (!existsSync(STATE)) {
    if (process.env.CI) throw new Error(`CI is set but ${STATE} is missing: .ci/run runs .ci/container.sh before the e2e suites`);
    return { skip: 'no image built here (as root on Debian, `bash .ci/container.sh` builds one)' };
  }
  const state = JSON.parse(readFileSync(STATE, 'utf8')) as Partial<Built> & { skipped?: string };
  if (state.skipped !== undefined) return { skip: `.ci/container.sh built no image: ${state.skipped}` };
  const built = state as Built;
  const exists = spawnSync('podman', [...built.podman, 'image', 'exists', built.image]);
  if (exists.status !== 0) {
    const gone = `${STATE} names ${built.image}, but podman has no such image (${exists.error?.message ?? `exit ${exists.status}`})`;
    if (process.env.CI) throw new Error(gone);
    return { skip: `${gone}: run .ci/container.sh again` };
  }
  return built;
}

const found = builtImage();
const skip = 'skip' in found ? found.skip : undefined;
if (skip) console.warn(`skipping the container image test: ${skip}`);

const tag = `sdp-e2e-${process.pid}`;
const volume = `${tag}-data`;
const started: { name: string; proc: ChildProcess }[] = [];

function podman(...args: string[]) {
  const built = found as Built;
  return spawnSync('podman', [...built.podman, ...args], { encoding: 'utf8' });
}

/** A port nothing listens on now: the container shares the host's network, so it must pick a free one. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
    probe.once('error', reject);
  });
}

/** `podman run` in the foreground, as a user starts the image: its output is the server's. */
async function runImage(port: number) {
  const built = found as Built;
  const name = `${tag}-${started.length}`;
  const proc = spawn(
    'podman',
    // The host's network rather than a published port: the same on every podman and docker, with no
    // bridge to set up. 127.0.0.1 keeps the server off the machine's other interfaces meanwhile.
    [...built.podman, 'run', '--rm', '--name', name, '--network', 'host', ...built.run, '-v', `${volume}:/data`, '-e', `SDP_PORT=${port}`, '-e', 'SDP_HOST=127.0.0.1', built.image],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  started.push({ name, proc });
  const exited = new Promise<number | null>((resolve) => proc.once('exit', resolve));
  const { url, output } = await listeningUrl(proc);
  /** SIGTERM to the server in the container (node is its PID 1); the exit code `podman run` passes on. */
  const stop = () => {
    expect(podman('kill', '--signal', 'SIGTERM', name).status).toBe(0);
    return exited;
  };
  return { url, output, stop };
}

afterAll(() => {
  if (skip) return;
  for (const { name, proc } of started) if (proc.exitCode === null) podman('rm', '--force', '--time', '0', name);
  podman('volume', 'rm', '--force', volume);
});

describe.skipIf(skip !== undefined)(`the image .ci/container.sh built${skip ? ` (skipped: ${skip})` : ''}`, () => {
  it('answers the curl line it prints with 200 and the charge, keeps the account on its volume across a restart, and stops cleanly on SIGTERM', async () => {
    const first = await runImage(await freePort());
    const out = first.output();
    expect(out).toMatch(/demo account created: username demo, API key \S+/);
    // The store is the SQLite file on the volume, where entry.sh puts it.
    expect(out).toMatch(/^store: sqlite\W.*\/data\/sdp\.db$/m);
    const curl = /^ {2}(curl .*)$/m.exec(out)![1]!;
    expect(curl).toContain(first.url);
    const answer = await runCurl(curl);
    expect(answer.status).toBe(200);
    expect(answer.headers.get('x-ratelimit-cost')).toMatch(/^[1-9]\d*$/);
    expect(await first.stop()).toBe(0);
    expect(first.output()).toContain('SIGTERM: finishing in-flight requests, then closing the store');

    // A new container on the same volume: the demo account and its key were kept, so none is opened.
    const second = await runImage(await freePort());
    expect(second.output()).not.toContain('demo account created');
    expect(second.output()).toContain('a working key:');
    const again = await runCurl(curl.replace(first.url, second.url));
    expect(again.status).toBe(200);
    expect(again.headers.get('x-ratelimit-cost')).toBe(answer.headers.get('x-ratelimit-cost'));
    expect(await second.stop()).toBe(0);
  }, 180_000);
});
