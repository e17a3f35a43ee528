/**
 * Many machines (issue 27, docs/scaling.md#many-machines-behind-nginx): three `sdp serve` processes on one
 * PostgreSQL database behind Debian's nginx running the shipped packages/server/deploy/nginx/sdp.conf, on loopback. Each
 * account's calls land on one process whichever form its credentials take, so no process races another
 * on its streams (no conflicts) and admission stays exact; when a process is SIGKILLed its accounts are
 * answered by another within 2 s, and every charge that was answered is still spent.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { findNginx, root, startNginx, type RoutedLine, type RunningNginx } from '../test/nginx-kit.ts';

const nginxBin = findNginx();
const postgres = process.env.SDP_TEST_POSTGRES;
const missing = !nginxBin
  ? 'nginx is not installed (run `bash .ci/nginx.sh`)'
  : !postgres
    ? 'SDP_TEST_POSTGRES is not set (run `bash .ci/postgres.sh` and set it to postgres://sdp:sdp@127.0.0.1:5432/sdp)'
    : undefined;
if (missing && process.env.CI) throw new Error(`CI is set but ${missing}: the routing behind nginx must be tested in CI (see .ci/run)`);
if (missing) console.warn(`skipping the nginx routing tests: ${missing}`);

const TOKEN = 'nginx-routing-admin-token';
const COST = 5; // POST /validate
const ADMITTED = 20;
const TIGHT = Array.from({ length: 8 }, (_, i) => `t${i}.ops@example.org`);
const AMPLE = Array.from({ length: 8 }, (_, i) => `ample_${i}-load`);
const WATCHER = 'stream.watch@example.org';
const keyOf = (username: string) => `nginx-key-${username.replace(/[^A-Za-z0-9]/g, '')}-000000`;

/** The three header forms real clients send (docs/clients.md#authentication-forms), taken in turn. */
function credentials(username: string, n: number): Record<string, string> {
  const pair = `${username}:${keyOf(username)}`;
  switch (n % 3) {
    case 0:
      return { Authorization: pair };
    case 1:
      return { Authorization: `Basic ${Buffer.from(pair).toString('base64')}` };
    default:
      return { Auth: pair };
  }
}

interface Backend {
  child: ChildProcess;
  url: string;
  /** `host:port`, as nginx's `$upstream_addr` names it. */
  addr: string;
}

const dir = mkdtempSync(join(tmpdir(), 'sdp-nginx-'));
const children: ChildProcess[] = [];
let backends: Backend[] = [];
let proxy: RunningNginx;
let store = '';

function serve(args: string[], port = 0): Promise<Backend> {
  const child = spawn(process.execPath, ['--conditions=@sdp/source', '--import', 'tsx', 'packages/server/src/cli.ts', 'serve', '--port', String(port), '--access-log', 'off', '--admin-token', TOKEN, '--store', store, '--routing', 'account', ...args], {
    cwd: root,
    env: { ...process.env, SDP_PORT: undefined, SDP_STORE: undefined, SDP_WORKERS: undefined, SDP_ADMIN_TOKEN: undefined },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let out = '';
  return new Promise((resolveReady, reject) => {
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /listening on http:\/\/(127\.0\.0\.1:\d+)/.exec(out);
      if (m) resolveReady({ child, url: `http://${m[1]}`, addr: m[1]! });
    });
    child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
    child.on('exit', (code, signal) => reject(new Error(`sdp serve exited (${code ?? signal}): ${out}`)));
  });
}

const adminOf = async (url: string, path: string) => {
  const r = await fetch(`${url}/_admin${path}`, { headers: { Authorization: `Bearer ${TOKEN}` } });
  expect(r.status, `${path} on ${url}`).toBe(200);
  return (await r.json()) as Record<string, unknown> & { conflicts: number; runs: number; gave_up: Record<string, number> };
};

/** One `POST /v1.5/validate` through nginx on a connection of its own; a refused or broken connection is status 0. */
async function validate(username: string, n: number): Promise<number> {
  try {
    const r = await fetch(`${proxy.url}/v1.5/validate`, {
      method: 'POST',
      headers: { ...credentials(username, n), 'Content-Type': 'application/json' },
      body: JSON.stringify({ csdl: 'interaction.content contains "hello"' }),
    });
    await r.arrayBuffer();
    return r.status;
  } catch {
    return 0;
  }
}

/** The processes each account's requests were answered by, from nginx's routing log (the last one tried). */
function owners(lines: RoutedLine[]): Map<string, Set<string>> {
  const by = new Map<string, Set<string>>();
  for (const l of lines) {
    const last = l.upstreams.at(-1);
    if (!last) continue;
    if (!by.has(l.account)) by.set(l.account, new Set());
    by.get(l.account)!.add(last);
  }
  return by;
}

beforeAll(async () => {
  if (missing) return;
  const url = new URL(postgres!);
  url.searchParams.set('schema', `sdp_test_nginx_${process.pid}`);
  store = url.toString();
  const accounts = join(dir, 'accounts.json');
  writeFileSync(
    accounts,
    JSON.stringify([
      ...TIGHT.map((username) => ({ username, api_key: keyOf(username), package: { credits_per_hour: COST * ADMITTED } })),
      ...[...AMPLE, WATCHER].map((username) => ({ username, api_key: keyOf(username), package: { credits_per_hour: 1e9 } })),
    ]),
  );
  // The first opens the accounts; the others find them in the database.
  const first = await serve(['--accounts', accounts]);
  backends = [first, ...(await Promise.all([serve([]), serve([])]))];
  proxy = await startNginx(nginxBin!, dir, backends.map((b) => b.addr));
}, 120_000);

afterAll(async () => {
  await proxy?.stop();
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(missing !== undefined)('three sdp serve processes on one PostgreSQL database behind nginx (packages/server/deploy/nginx/sdp.conf)', () => {
  it('hashes on the username the server reads, wherever the request carries it, and on nothing otherwise', async () => {
    const basic = (pair: string) => `Basic ${Buffer.from(pair).toString('base64')}`;
    const cases: { path: string; headers?: Record<string, string>; key: string }[] = [
      { path: '/v1.5/balance', headers: { Authorization: 'ann.lee@example.org:some-key-1' }, key: 'ann.lee@example.org' },
      { path: '/v1.5/balance', headers: { Authorization: basic('bob_2:some-key-2') }, key: 'bob_2' },
      { path: '/v1.5/balance', headers: { Authorization: `basic  ${Buffer.from('bob_2:k').toString('base64')}` }, key: 'bob_2' },
      { path: '/v1.5/balance', headers: { Auth: 'cy-3:some-key-3' }, key: 'cy-3' },
      // The server falls back to `Auth` when `Authorization` is neither a pair nor Basic.
      { path: '/v1.5/balance', headers: { Authorization: 'Bearer something', Auth: 'cy-3:some-key-3' }, key: 'cy-3' },
      // The query's pair counts only whole, and only for the stream (which reads it first).
      { path: '/multi?username=dee%40example.org&api_key=k', key: 'dee@example.org' },
      { path: '/multi?username=dee%40example.org&api_key=k', headers: { Authorization: 'ann.lee@example.org:k' }, key: 'dee@example.org' },
      { path: '/multi?username=dee', headers: { Authorization: 'ann.lee@example.org:k' }, key: 'ann.lee@example.org' },
      { path: '/_admin/accounts/ann.lee%40example.org/charge', headers: { Authorization: `Bearer ${TOKEN}` }, key: 'ann.lee@example.org' },
      // Not routed (round robin): nothing nginx can read, or nothing that names an account.
      { path: '/multi?username=a%40b%40c&api_key=k', key: '' },
      { path: '/v1.5/balance', key: '' },
      { path: '/v1.5/balance', headers: { Authorization: 'ann lee:key' }, key: '' },
      { path: '/_admin/attempts', headers: { Authorization: `Bearer ${TOKEN}` }, key: '' },
    ];
    const logged = proxy.log().length;
    for (const c of cases) await (await fetch(`${proxy.url}${c.path}`, { headers: c.headers ?? {} })).arrayBuffer();
    await expect.poll(() => proxy.log().length - logged, { timeout: 5000 }).toBe(cases.length);
    expect(proxy.log().slice(logged).map((l) => l.account)).toEqual(cases.map((c) => c.key));

    // An event log import larger than a call's 4 MiB reaches the server (which refuses it: this store is
    // not empty), where nginx's own limit would answer 413.
    const big = await fetch(`${proxy.url}/_admin/events`, { method: 'POST', headers: { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/x-ndjson' }, body: '{}\n'.repeat(2_000_000) });
    expect(big.status).not.toBe(413);
    expect(((await big.json()) as { error: string }).error).toEqual(expect.any(String));
  }, 60_000);

  it('routes every account to one process whichever credential form it sends: no conflicts, exactly the allowance admitted', async () => {
    const before = await Promise.all(backends.map((b) => adminOf(b.url, '/attempts')));
    const logged = proxy.log().length;
    const calls = TIGHT.flatMap((u) => Array.from({ length: ADMITTED * 2 }, (_, n) => ({ u, n })));
    const statuses = await Promise.all(calls.map(({ u, n }) => validate(u, n)));
    for (const u of TIGHT) {
      const mine = statuses.filter((_, i) => calls[i]!.u === u);
      expect({ u, ok: mine.filter((s) => s === 200).length, refused: mine.filter((s) => s === 429).length }).toEqual({ u, ok: ADMITTED, refused: ADMITTED });
    }

    // nginx logs a request once it has answered it: the last lines may come just after their answers.
    await expect.poll(() => proxy.log().length - logged, { timeout: 5000 }).toBe(calls.length);
    const lines = proxy.log().slice(logged);
    // nginx read the username from each of the three forms alike (the key it hashed is the account's own)...
    expect(new Set(lines.map((l) => l.account))).toEqual(new Set(TIGHT));
    // ... and sent each account to one process, never retrying elsewhere.
    const routed = owners(lines);
    for (const u of TIGHT) expect({ u, processes: routed.get(u)!.size }).toEqual({ u, processes: 1 });
    expect(lines.every((l) => l.upstreams.length === 1)).toBe(true);
    // Each process counted the calls nginx says it sent there, none of them conflicting with another
    // process's. (How the 8 accounts spread over the processes depends on their ports, on the ring.)
    const after = await Promise.all(backends.map((b) => adminOf(b.url, '/attempts')));
    const served = backends.map((b) => lines.filter((l) => l.upstreams[0] === b.addr).length);
    expect(after.map((a, i) => a.runs - before[i]!.runs)).toEqual(served);
    expect(after.map((a, i) => a.conflicts - before[i]!.conflicts)).toEqual([0, 0, 0]);
  }, 120_000);

  it('routes the stream by its query credentials (WebSocket) and headers (duplex GET /, single-hash HTTP stream) to the account owner', async () => {
    const username = WATCHER;
    const compiled = await fetch(`${proxy.url}/v1.5/compile`, {
      method: 'POST',
      headers: { ...credentials(username, 0), 'Content-Type': 'application/json' },
      body: JSON.stringify({ csdl: 'interaction.content contains "coffee"' }),
    });
    expect(compiled.status).toBe(200);
    const { hash } = (await compiled.json()) as { hash: string };

    // The query as a WebSocket client encodes it: `@` as %40, which the configuration decodes.
    const ws = new WebSocket(`ws://127.0.0.1:${proxy.port}/multi?username=${encodeURIComponent(username)}&api_key=${keyOf(username)}`);
    const first = new Promise<Record<string, unknown>>((resolveFirst, reject) => {
      ws.once('message', (data) => resolveFirst(JSON.parse(String(data))));
      ws.once('error', reject);
    });
    await new Promise<void>((r, reject) => (ws.once('open', () => r()), ws.once('error', reject)));
    ws.send(JSON.stringify({ action: 'subscribe', hash }));
    expect(await first).toEqual({ status: 'success', message: `Successfully subscribed to hash ${hash}`, hash });
    ws.close();

    // The duplex stream: a GET whose chunked body carries the subscriptions while the answer streams out.
    const chunk = (text: string) => `${Buffer.byteLength(text).toString(16)}\r\n${text}\r\n`;
    const duplex = await rawStream(`GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n${headerLines(credentials(username, 1))}Transfer-Encoding: chunked\r\n\r\n${chunk('\n')}`);
    duplex.socket.write(chunk(JSON.stringify({ action: 'subscribe', hash }) + '\n'));
    await expect.poll(() => duplex.bytes(), { timeout: 5000 }).toContain(`Successfully subscribed to hash ${hash}`);
    expect(duplex.bytes()).toMatch(/^HTTP\/1\.1 200/);
    duplex.socket.destroy();

    // A single-hash HTTP stream with the `Auth` header.
    const single = await rawStream(`GET /${hash} HTTP/1.1\r\nHost: 127.0.0.1\r\n${headerLines(credentials(username, 2))}\r\n`);
    await expect.poll(() => single.bytes(), { timeout: 5000 }).toContain(`Successfully subscribed to hash ${hash}`);
    single.socket.destroy();

    // nginx logs a stream when it ends: both went to the process that answers the account's API calls.
    await expect.poll(() => proxy.log().filter((l) => l.account === username).length, { timeout: 5000 }).toBe(4);
    const streamed = proxy.log().filter((l) => l.account === username);
    expect(streamed.map((l) => l.request).sort()).toEqual(['GET /', `GET /${hash}`, 'GET /multi', 'POST /v1.5/compile']);
    expect(owners(streamed).get(username)!.size).toBe(1);
  }, 60_000);

  it('moves the accounts of a SIGKILLed process to another within 2 s, losing no answered charge, back once it returns, and to a stale cache that the store corrects', async () => {
    // Who owns what: a call of each account.
    const warm = proxy.log().length;
    for (const [n, u] of AMPLE.entries()) expect(await validate(u, n)).toBe(200);
    await expect.poll(() => proxy.log().length - warm, { timeout: 5000 }).toBe(AMPLE.length);
    const owned = owners(proxy.log().slice(warm));
    const counts = backends.map((b) => AMPLE.filter((u) => owned.get(u)!.has(b.addr)).length);
    const victim = backends[counts.indexOf(Math.max(...counts))]!;
    const moved = AMPLE.filter((u) => owned.get(u)!.has(victim.addr));
    const survivors = backends.filter((b) => b !== victim);
    const spentBefore = new Map(await Promise.all(AMPLE.map(async (u) => [u, await spent(u)] as const)));

    // Four clients an account, each calling one after another, for 1 s before the kill and 3 s after.
    const answers: { u: string; status: number; startedAt: number; endedAt: number }[] = [];
    let killedAt = Infinity;
    const until = Date.now() + 4000;
    const client = async (u: string, c: number) => {
      for (let n = c; Date.now() < until; n += 4) {
        const startedAt = Date.now();
        const status = await validate(u, n);
        answers.push({ u, status, startedAt, endedAt: Date.now() });
      }
    };
    const load = Promise.all(AMPLE.flatMap((u) => [0, 1, 2, 3].map((c) => client(u, c))));
    await new Promise((r) => setTimeout(r, 1000));
    killedAt = Date.now();
    victim.child.kill('SIGKILL');
    await load;

    // The moved accounts were answered by another process within 2 s of the kill, and every call begun
    // after that was answered 200; the others never noticed.
    const failover = moved.map((u) => Math.min(...answers.filter((a) => a.u === u && a.status === 200 && a.startedAt >= killedAt).map((a) => a.endedAt)) - killedAt);
    expect(Math.max(...failover)).toBeLessThan(2000);
    expect(answers.filter((a) => a.startedAt >= killedAt + 2000 && a.status !== 200)).toEqual([]);
    for (const u of AMPLE.filter((x) => !moved.includes(x))) expect(answers.filter((a) => a.u === u && a.status !== 200)).toEqual([]);
    // nginx sent each moved account to one surviving process once the victim was marked down.
    const afterKill = proxy.log().filter((l) => l.at > killedAt + 2000 && moved.includes(l.account));
    for (const u of moved) expect(owners(afterKill).get(u)?.size ?? 0).toBeLessThanOrEqual(1);

    // No answered charge lost, none invented: what each account's allowance shows spent is every 200's
    // cost, plus at most the cost of the calls that got no answer from the process that died under them.
    for (const u of AMPLE) {
      const mine = answers.filter((a) => a.u === u);
      const acknowledged = COST * mine.filter((a) => a.status === 200).length;
      const unanswered = COST * mine.filter((a) => a.status === 0 || a.status >= 500).length;
      const now = (await spent(u)) - spentBefore.get(u)!;
      expect({ u, spentAtLeastAnswered: now >= acknowledged, spentAtMostAsked: now <= acknowledged + unanswered }).toEqual({ u, spentAtLeastAnswered: true, spentAtMostAsked: true });
    }
    // The process comes back on its address: once nginx tries it again (fail_timeout=10s) its accounts
    // return to it, each still on one process at a time, and every call is answered and charged once.
    const back = await serve([], Number(victim.addr.split(':')[1]));
    const returning = moved[0]!;
    const comeback: number[] = [];
    const spentBeforeComeback = await spent(returning);
    const since = proxy.log().length;
    await expect
      .poll(
        async () => {
          comeback.push(await validate(returning, comeback.length));
          return proxy.log().slice(since).some((l) => l.account === returning && l.upstreams.at(-1) === back.addr);
        },
        { timeout: 30_000, interval: 200 },
      )
      .toBe(true);
    expect(comeback.filter((st) => st !== 200)).toEqual([]);
    expect((await spent(returning)) - spentBeforeComeback).toBe(COST * comeback.length);

    // Killed again, the returned process hands the account back to the process that held it meanwhile,
    // whose cached states of it are now behind the returned process's writes: it trusts them
    // (`--routing account`), its append expects a version the account has passed, the store refuses it,
    // and the call is decided again on what the store holds. Every call answered, each charged once.
    for (let n = 0; n < 10; n++) expect(await validate(returning, n)).toBe(200);
    const spentBeforeSecondKill = await spent(returning);
    const attemptsBefore = await Promise.all(survivors.map((b) => adminOf(b.url, '/attempts')));
    back.child.kill('SIGKILL');
    await new Promise((r) => setTimeout(r, 200));
    const again: number[] = [];
    for (let n = 0; n < 20; n++) again.push(await validate(returning, n));
    expect(again.at(-1)).toBe(200);
    const acknowledged = COST * again.filter((st) => st === 200).length;
    const unanswered = COST * again.filter((st) => st === 0 || st >= 500).length;
    const spentAgain = (await spent(returning)) - spentBeforeSecondKill;
    expect(spentAgain >= acknowledged && spentAgain <= acknowledged + unanswered).toBe(true);
    const attemptsAfter = await Promise.all(survivors.map((b) => adminOf(b.url, '/attempts')));
    const staleConflicts = attemptsAfter.reduce((t, a, i) => t + a.conflicts - attemptsBefore[i]!.conflicts, 0);

    const figures = { moved: moved.length, failoverMs: Math.max(...failover), staleConflicts, secondKill: again.filter((st) => st !== 200), calls: answers.length, notOk: answers.filter((a) => a.status !== 200).map((a) => `${a.status} begun ${a.startedAt - killedAt} ms after the kill`) };
    console.info(`nginx failover: ${JSON.stringify(figures)}`);
  }, 120_000);
});

const headerLines = (headers: Record<string, string>) => Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join('');

/** A raw connection to nginx that keeps every byte it answers. */
async function rawStream(request: string) {
  const socket = connect(proxy.port, '127.0.0.1');
  let bytes = '';
  socket.setEncoding('latin1');
  socket.on('data', (d: string) => (bytes += d));
  socket.on('error', () => undefined);
  await new Promise<void>((r) => socket.once('connect', () => r()));
  socket.write(request);
  return { socket, bytes: () => bytes };
}

/**
 * What an account's allowance shows spent, asked of its owner through nginx (which routes the operator's
 * per-account paths by account): a process started with `--routing account` trusts its cached states,
 * and another process's cache of an account it served before may be behind.
 */
async function spent(username: string): Promise<number> {
  const view = (await adminOf(proxy.url, `/accounts/${encodeURIComponent(username)}`)) as unknown as { allowances: { general: { limit: number; remaining: number } } };
  return view.allowances.general.limit - view.allowances.general.remaining;
}
