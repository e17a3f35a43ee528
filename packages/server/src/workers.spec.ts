import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const dir = mkdtempSync(join(tmpdir(), 'sdp-workers-'));
const children: ChildProcess[] = [];

afterAll(() => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

/** `sdp serve` as a user starts it, in one node process (no wrapper), so signals reach the server itself. */
function serve(args: string[]): { child: ChildProcess; ready: Promise<{ url: string; output: string }>; output: () => string } {
  const child = spawn(process.execPath, ['--conditions=@sdp/source', '--import', 'tsx', 'packages/server/src/cli.ts', 'serve', '--port', '0', '--access-log', 'off', ...args], {
    cwd: root,
    env: { ...process.env, SDP_PORT: undefined, SDP_STORE: undefined, SDP_WORKERS: undefined },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let out = '';
  const ready = new Promise<{ url: string; output: string }>((resolveReady, reject) => {
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (m) resolveReady({ url: m[1]!, output: out });
    });
    child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
    child.on('exit', (code) => reject(new Error(`server exited with ${code}: ${out}`)));
  });
  return { child, ready, output: () => out };
}

const exited = (child: ChildProcess): Promise<number | null> =>
  child.exitCode !== null ? Promise.resolve(child.exitCode) : new Promise((r) => child.once('exit', (code) => r(code)));

/** Children of a process, read from /proc (the cluster's workers). */
async function childPids(pid: number): Promise<number[]> {
  const { readFileSync } = await import('node:fs');
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

const VALIDATE_COST = 5;
const ADMITTED = 20;

/**
 * Many calls of one account at once, each on its own connection so the cluster hands them to every
 * worker: exactly the allowance is admitted, the rest refused with 429.
 */
async function admissionAcross(url: string, calls: number): Promise<{ ok: number; refused: number; other: number[] }> {
  const answers = await Promise.all(
    Array.from({ length: calls }, () =>
      fetch(`${url}/v1.5/validate`, {
        method: 'POST',
        headers: { Authorization: 'fleet:fleet-key-000000000000000000000001', 'Content-Type': 'application/json', Connection: 'close' },
        body: JSON.stringify({ csdl: 'interaction.content contains "hello"' }),
      }).then(async (r) => (await r.arrayBuffer(), r.status)),
    ),
  );
  return { ok: answers.filter((s) => s === 200).length, refused: answers.filter((s) => s === 429).length, other: answers.filter((s) => s !== 200 && s !== 429) };
}

function accountsFile(): string {
  const file = join(dir, `accounts-${children.length}.json`);
  writeFileSync(file, JSON.stringify([{ username: 'fleet', api_key: 'fleet-key-000000000000000000000001', package: { credits_per_hour: VALIDATE_COST * ADMITTED } }]));
  return file;
}

async function checkCluster(store: string): Promise<void> {
  const s = serve(['--workers', '3', '--store', store, '--accounts', accountsFile()]);
  const { url, output } = await s.ready;
  expect(output).toContain('workers: 3 processes share the port');
  expect(await childPids(s.child.pid!)).toHaveLength(3);
  const figures = await admissionAcross(url, 90);
  expect(figures).toEqual({ ok: ADMITTED, refused: 90 - ADMITTED, other: [] });

  s.child.kill('SIGTERM');
  expect(await exited(s.child)).toBe(0);
  expect(s.output()).not.toMatch(/exited .*starting another/);
}

describe('sdp serve --workers N (node:cluster)', () => {
  it('admits exactly the allowance across three workers on one SQLite file, and stops them all on SIGTERM', async () => {
    await checkCluster(`sqlite:${join(dir, 'cluster.db')}`);
  });

  it.skipIf(!process.env.SDP_TEST_POSTGRES)('admits exactly the allowance across three workers on one PostgreSQL store', async () => {
    const url = new URL(process.env.SDP_TEST_POSTGRES!);
    url.searchParams.set('schema', `sdp_test_workers_${process.pid}`);
    await checkCluster(url.toString());
  });

  it('starts another worker when one dies, and keeps serving', async () => {
    const s = serve(['--workers', '2', '--store', `sqlite:${join(dir, 'restart.db')}`, '--accounts', accountsFile()]);
    const { url } = await s.ready;
    const [first] = await childPids(s.child.pid!);
    process.kill(first!, 'SIGKILL');
    await expect.poll(() => s.output(), { timeout: 10_000 }).toMatch(/worker \d+ exited \(SIGKILL\); starting another/);
    await expect.poll(async () => (await childPids(s.child.pid!)).length, { timeout: 10_000 }).toBe(2);
    const r = await fetch(`${url}/v1.5/validate`, {
      method: 'POST',
      headers: { Authorization: 'fleet:fleet-key-000000000000000000000001', 'Content-Type': 'application/json' },
      body: JSON.stringify({ csdl: 'interaction.content contains "hello"' }),
    });
    expect(r.status).toBe(200);
    s.child.kill('SIGTERM');
    expect(await exited(s.child)).toBe(0);
  });

  it('gives up after the fifth worker death within 10 s: exits 1 and starts no sixth worker', async () => {
    const s = serve(['--workers', '2', '--store', `sqlite:${join(dir, 'deaths.db')}`, '--accounts', accountsFile()]);
    await s.ready;
    const killed = new Set<number>();
    for (let death = 1; death <= 5; death++) {
      // A worker not killed yet (the one started after the last death, or the other).
      let victim: number | undefined;
      await expect
        .poll(async () => (victim = (await childPids(s.child.pid!)).find((pid) => !killed.has(pid))), { timeout: 10_000 })
        .toBeDefined();
      killed.add(victim!);
      process.kill(victim!, 'SIGKILL');
      if (death < 5) await expect.poll(() => s.output().match(/starting another/g)?.length ?? 0, { timeout: 10_000 }).toBe(death);
    }
    await expect.poll(() => s.child.exitCode, { timeout: 10_000 }).toBe(1);
    expect(s.output()).toMatch(/5 exits in 10 s: stopping/);
    expect(s.output().match(/starting another/g)).toHaveLength(4);
  });

  it('refuses --workers with the memory store, with a message that says why', async () => {
    const s = serve(['--workers', '2', '--store', 'memory:']);
    await expect(s.ready).rejects.toThrow(/needs a store the processes share/);
    expect(s.child.exitCode).toBe(2);
  });
});
