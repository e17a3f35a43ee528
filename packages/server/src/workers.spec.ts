import { spawn, type ChildProcess } from 'node:child_process';
import { Agent, request as httpRequest } from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { staleDecisions, type LoggedEvent } from '@sdp/testing';
import { ownerOf } from './account-router.ts';

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
  expect(output).toContain("workers: 3 processes; each account's connections go to one of them");
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

  it("hands stream connections to the account's worker too, on the API's port and on --stream-port", async () => {
    const s = serve(['--workers', '2', '--stream-port', '0', '--store', `sqlite:${join(dir, 'streams.db')}`, '--accounts', accountsOf({ streamer: 1e6 })]);
    const { url } = await s.ready;
    await expect.poll(() => /stream on (http:\/\/127\.0\.0\.1:\d+)/.exec(s.output())?.[1]).toBeDefined();
    const streamUrl = /stream on (http:\/\/127\.0\.0\.1:\d+)/.exec(s.output())![1]!;
    const compiled = await fetch(`${url}/v1.5/compile`, { method: 'POST', headers: { Authorization: `streamer:${keyOf('streamer')}`, 'Content-Type': 'application/json' }, body: CSDL });
    const { hash } = (await compiled.json()) as { hash: string };
    for (const base of [url, streamUrl]) {
      const ws = new WebSocket(`${base.replace('http', 'ws')}/multi?username=streamer&api_key=${keyOf('streamer')}`);
      await new Promise((opened, failed) => {
        ws.on('open', opened);
        ws.on('error', failed);
      });
      ws.send(JSON.stringify({ action: 'subscribe', hash }));
      const answer = JSON.parse(String(await new Promise((got) => ws.once('message', got)))) as { status: string; hash: string };
      expect(answer).toMatchObject({ status: 'success', hash });
      ws.close();
    }
    s.child.kill('SIGTERM');
    expect(await exited(s.child)).toBe(0);
  });

  it('refuses --workers with the memory store, with a message that says why', async () => {
    const s = serve(['--workers', '2', '--store', 'memory:']);
    await expect(s.ready).rejects.toThrow(/needs a store the processes share/);
    expect(s.child.exitCode).toBe(2);
  });
});

const ADMIN = 'workers-admin-token';
const CSDL = JSON.stringify({ csdl: 'interaction.content contains "hello"' });
const keyOf = (user: string) => `${user}-key-0000000000000000000000001`;

function accountsOf(users: Record<string, number>): string {
  const file = join(dir, `accounts-${children.length}-${Object.keys(users).length}.json`);
  writeFileSync(file, JSON.stringify(Object.entries(users).map(([username, credits]) => ({ username, api_key: keyOf(username), package: { credits_per_hour: credits } }))));
  return file;
}

/** One keep-alive connection that stays open: every call on it goes to the worker its first call's account owns. */
function pinnedConnection(url: string) {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const call = (user: string, path = '/v1.5/validate', body = CSDL) =>
    new Promise<number>((resolveCall, reject) => {
      const req = httpRequest(`${url}${path}`, { method: 'POST', agent, headers: { Authorization: `${user}:${keyOf(user)}`, 'Content-Type': 'application/json' } }, (res) => {
        res.resume();
        res.on('end', () => resolveCall(res.statusCode!));
      });
      req.on('error', reject);
      req.end(body);
    });
  return { call, close: () => agent.destroy() };
}

/** Each worker's attempt counts, by pid: operator calls name no account, so new connections reach the workers in turn. */
async function attemptsByWorker(url: string, workers: number): Promise<Map<number, { runs: number; conflicts: number }>> {
  const seen = new Map<number, { runs: number; conflicts: number }>();
  for (let ask = 0; ask < workers * 10 && seen.size < workers; ask++) {
    const r = await fetch(`${url}/_admin/attempts`, { headers: { Authorization: `Bearer ${ADMIN}`, Connection: 'close' } });
    const a = (await r.json()) as { pid: number; runs: number; conflicts: number };
    seen.set(a.pid, a);
  }
  expect(seen.size).toBe(workers);
  return seen;
}

const operator = (url: string, method: string, path: string, body?: unknown) =>
  fetch(`${url}/_admin${path}`, { method, headers: { Authorization: `Bearer ${ADMIN}`, 'Content-Type': 'application/json', Connection: 'close' }, ...(body ? { body: JSON.stringify(body) } : {}) });

const stores: [string, (name: string) => string][] = [
  ['SQLite', (name) => `sqlite:${join(dir, `${name}.db`)}`],
  ...(process.env.SDP_TEST_POSTGRES
    ? ([
        [
          'PostgreSQL',
          (name: string) => {
            const u = new URL(process.env.SDP_TEST_POSTGRES!);
            u.searchParams.set('schema', `sdp_test_${name}_${process.pid}`);
            return u.toString();
          },
        ],
      ] as [string, (name: string) => string][])
    : []),
];

describe.each(stores)('sdp serve --workers 4 routes each account to one worker (%s)', (_kind, storeOf) => {
  it("answers 8 accounts' calls, each account in one worker: admission exact, no write lost to another worker", async () => {
    const users = Object.fromEntries(Array.from({ length: 8 }, (_, i) => [`acct${i}`, VALIDATE_COST * ADMITTED]));
    const s = serve(['--workers', '4', '--store', storeOf('routed'), '--accounts', accountsOf(users), '--admin-token', ADMIN]);
    const { url } = await s.ready;
    const answers = await Promise.all(
      Object.keys(users).flatMap((user) =>
        Array.from({ length: 2 * ADMITTED }, () =>
          fetch(`${url}/v1.5/validate`, { method: 'POST', headers: { Authorization: `${user}:${keyOf(user)}`, 'Content-Type': 'application/json', Connection: 'close' }, body: CSDL }).then(async (r) => (await r.arrayBuffer(), [user, r.status] as const)),
        ),
      ),
    );
    for (const user of Object.keys(users)) {
      const mine = answers.filter(([u]) => u === user).map(([, status]) => status);
      expect({ user, ok: mine.filter((st) => st === 200).length, refused: mine.filter((st) => st === 429).length }).toEqual({ user, ok: ADMITTED, refused: ADMITTED });
    }
    const workers = [...(await attemptsByWorker(url, 4)).values()];
    // Every account's calls were decided in one process: none lost its append to another's.
    expect(workers.reduce((n, w) => n + w.conflicts, 0)).toBe(0);
    expect(workers.filter((w) => w.runs > 0).length).toBeGreaterThanOrEqual(2);
    s.child.kill('SIGTERM');
    expect(await exited(s.child)).toBe(0);
  }, 60_000);

  it("an account's calls reaching all four workers (on connections another account opened) race package changes and denials, and no decision is taken on a stale state", async () => {
    const carriers = Array.from({ length: 16 }, (_, i) => `carrier${i}`);
    // Connections opened by these accounts land on every worker (slots 0-3, as the primary numbers them).
    expect(new Set(carriers.map((c) => ownerOf(c, [0, 1, 2, 3]))).size).toBe(4);
    const s = serve(['--workers', '4', '--store', storeOf('raced'), '--accounts', accountsOf({ racer: 400, ...Object.fromEntries(carriers.map((c) => [c, 1e6])) }), '--admin-token', ADMIN]);
    const { url } = await s.ready;
    const connections = carriers.map(() => pinnedConnection(url));
    await Promise.all(connections.map((c, i) => c.call(carriers[i]!)));
    const before = await attemptsByWorker(url, 4);
    const statuses: Record<number, number> = {};
    const ROUNDS = 24;
    for (let r = 0; r < ROUNDS; r++) {
      const change = r % 4;
      const side =
        change === 0
          ? operator(url, 'PUT', '/accounts/racer/package', { credits_per_hour: [100_000, 200, 100_000, 400][(r >> 2) % 4] })
          : change === 1
            ? operator(url, 'POST', `/accounts/racer/${r % 8 === 1 ? 'deny' : 'allow'}`, {})
            : operator(url, 'POST', '/accounts/racer/allow', {});
      const calls = connections.map((c) => c.call('racer').then((st) => (statuses[st] = (statuses[st] ?? 0) + 1)));
      const [changed] = await Promise.all([side, ...calls]);
      expect(changed.status).toBe(200);
    }
    for (const c of connections) c.close();
    const after = await attemptsByWorker(url, 4);
    // The racer's calls were decided in every worker, not routed to one.
    expect([...after].filter(([pid, a]) => a.runs - (before.get(pid)?.runs ?? 0) >= ROUNDS).length).toBe(4);
    const log = await (await fetch(`${url}/_admin/events?after=0&limit=100000`, { headers: { Authorization: `Bearer ${ADMIN}` } })).text();
    const events = log
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as LoggedEvent);
    const checked = staleDecisions(events, 'racer');
    expect(checked.stale).toEqual([]);
    expect(checked.charges).toBeGreaterThan(10);
    expect(statuses[200]).toBeGreaterThan(0);
    expect((statuses[403] ?? 0) + (statuses[429] ?? 0)).toBeGreaterThan(0);
    expect(Object.keys(statuses).filter((st) => !['200', '403', '429'].includes(st))).toEqual([]);
    s.child.kill('SIGTERM');
    expect(await exited(s.child)).toBe(0);
  }, 120_000);

  it("serves a SIGKILLed worker's accounts from another within 2 s, and loses no acknowledged charge", async () => {
    const s = serve(['--workers', '4', '--store', storeOf('killed'), '--accounts', accountsOf({ victim: 1e6 }), '--admin-token', ADMIN]);
    const { url } = await s.ready;
    const call = () =>
      fetch(`${url}/v1.5/validate`, { method: 'POST', headers: { Authorization: `victim:${keyOf('victim')}`, 'Content-Type': 'application/json', Connection: 'close' }, body: CSDL, signal: AbortSignal.timeout(4_000) }).then(
        async (r) => (await r.arrayBuffer(), r.status),
        () => 'failed' as const,
      );
    const before = await attemptsByWorker(url, 4);
    for (let i = 0; i < 5; i++) expect(await call()).toBe(200);
    const after = await attemptsByWorker(url, 4);
    const owner = [...after].find(([pid, a]) => a.runs - before.get(pid)!.runs === 5)?.[0];
    expect(owner).toBeDefined();

    let acknowledged = 5;
    let unknown = 0;
    let killedAt = 0;
    let servedAgainAt = 0;
    const started = Date.now();
    // Calls one after another, across the kill: the one in flight when it lands may or may not be written.
    while (servedAgainAt === 0 || Date.now() - servedAgainAt < 300) {
      if (killedAt === 0 && Date.now() - started > 300) {
        process.kill(owner!, 'SIGKILL');
        killedAt = Date.now();
      }
      const status = await call();
      if (status === 200) {
        acknowledged++;
        if (killedAt > 0 && servedAgainAt === 0) servedAgainAt = Date.now();
      } else if (status === 'failed' || status >= 500) unknown++;
      else throw new Error(`unexpected ${status}`);
      if (killedAt > 0) expect(Date.now() - killedAt).toBeLessThan(5_000);
    }
    expect(servedAgainAt - killedAt).toBeLessThan(2_000);
    await expect.poll(() => s.output(), { timeout: 10_000 }).toMatch(/worker \d+ exited \(SIGKILL\); starting another/);
    const view = (await (await operator(url, 'GET', '/accounts/victim')).json()) as { allowances: { general: { limit: number; remaining: number } } };
    const spent = view.allowances.general.limit - view.allowances.general.remaining;
    expect(spent).toBeGreaterThanOrEqual(acknowledged * VALIDATE_COST);
    expect(spent).toBeLessThanOrEqual((acknowledged + unknown) * VALIDATE_COST);
    s.child.kill('SIGTERM');
    expect(await exited(s.child)).toBe(0);
  }, 60_000);
});
