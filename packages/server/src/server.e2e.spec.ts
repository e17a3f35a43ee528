import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENDPOINTS, VERSIONS, atLeast, type Endpoint, type VersionId } from '@sdp/core';
import { firehose } from '@sdp/core/internal';
import { samplePath } from '@sdp/http';
import { defaultSettings, type ServerSettings } from './settings.ts';
import { startServer, type RunningSdp } from './server.ts';
import { FLUSH_MS } from './access-log.ts';

const T0 = Date.parse('2026-03-02T08:05:37Z');
const TOKEN = 'operator-token-for-tests';
const dir = mkdtempSync(join(tmpdir(), 'sdp-e2e-'));

let sdp: RunningSdp;
const admin = (method: string, path: string, body?: unknown, token = TOKEN) =>
  fetch(`${sdp.url}/_admin${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
// eslint-disable-next-line
const json = (r: Response): Promise<any> => r.json();
const api = (path: string, init: RequestInit & { user?: [string, string] } = {}) => {
  const { user, ...rest } = init;
  return fetch(`${sdp.url}${path}`, { ...rest, headers: { ...(user ? { authorization: `${user[0]}:${user[1]}` } : {}), ...(rest.headers as object) } });
};

function settings(over: Partial<ServerSettings>): ServerSettings {
  return { ...defaultSettings(), port: 0, store: 'memory:', clock: 'manual', clockStartMs: T0, adminToken: TOKEN, accessLog: join(dir, 'access.log'), ...over };
}

beforeAll(async () => {
  sdp = await startServer(settings({}));
});
afterAll(async () => {
  await sdp.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the operator API (docs/contract.md#operator-api)', () => {
  it('refuses calls without the bearer token', async () => {
    expect((await fetch(`${sdp.url}/_admin/clock`)).status).toBe(401);
    expect((await admin('GET', '/clock', undefined, 'wrong')).status).toBe(401);
  });

  it('opens, reads, changes, denies and allows accounts', async () => {
    const created = await admin('POST', '/accounts', { username: 'op-alice', package: { credits_per_hour: 500 } });
    expect(created.status).toBe(201);
    const body = await json(created);
    expect(body.username).toBe('op-alice');
    expect(body.api_key).toMatch(/^[0-9a-f]{32}$/);
    expect(body.package.credits_per_hour).toBe(500);
    expect(created.headers.get('x-ratelimit-limit')).toBeNull();
    expect((await admin('POST', '/accounts', { username: 'op-alice' })).status).toBe(409);
    expect((await admin('POST', '/accounts', { username: 'bad name!' })).status).toBe(400);
    expect((await admin('POST', '/accounts', { username: 'op-x', package: { credits_per_hour: -1 } })).status).toBe(400);
    expect((await admin('POST', '/accounts', { username: 'op-y', api_key: 12345678 })).status).toBe(400);
    expect((await admin('POST', '/accounts', '[1]' as unknown)).status).toBe(400);

    const view = await json(await admin('GET', '/accounts/op-alice'));
    expect(view).toMatchObject({ username: 'op-alice', denied: false, allowances: { general: { limit: 500, remaining: 500 }, analyze: { limit: 10000 } } });
    expect((await admin('GET', '/accounts/nobody')).status).toBe(404);

    const changed = await admin('PUT', '/accounts/op-alice/package', { credits_per_hour: 700, task_slots: 2 });
    expect(changed.status).toBe(200);
    expect((await json(changed)).package).toMatchObject({ credits_per_hour: 700, task_slots: 2 });

    const key = body.api_key as string;
    expect((await admin('POST', '/accounts/op-alice/deny', { reason: 'abuse' })).status).toBe(200);
    const denied = await api('/v1.5/account/identity', { user: ['op-alice', key] });
    expect(denied.status).toBe(403);
    expect((await json(denied)).error).toMatch(/abuse/);
    expect((await admin('POST', '/accounts/op-alice/allow')).status).toBe(200);
    expect((await api('/v1.5/account/identity', { user: ['op-alice', key] })).status).not.toBe(403);
  });

  it('charges the stream product against the general allowance, 429 when short', async () => {
    await admin('POST', '/accounts', { username: 'op-stream', package: { credits_per_hour: 100 } });
    const ok = await admin('POST', '/accounts/op-stream/charge', { cost: 60, product: 'stream' });
    expect(ok.status).toBe(200);
    expect(await json(ok)).toMatchObject({ limit: 100, remaining: 40, cost: 60 });
    const short = await admin('POST', '/accounts/op-stream/charge', { cost: 41, product: 'stream' });
    expect(short.status).toBe(429);
    expect(await json(short)).toMatchObject({ remaining: 40, cost: 41 });
    expect((await json(await admin('GET', '/accounts/op-stream'))).allowances.general.remaining).toBe(40);
    expect((await admin('POST', '/accounts/op-stream/charge', { cost: 'ten' })).status).toBe(400);
    expect((await admin('POST', '/accounts/nobody/charge', { cost: 1 })).status).toBe(404);
  });

  it('reads and moves the manual clock, never backwards', async () => {
    const now = (await json(await admin('GET', '/clock'))).now as number;
    expect(await json(await admin('GET', '/clock'))).toEqual({ now, kind: 'manual' });
    expect(await json(await admin('POST', '/clock', { advance_ms: 1000 }))).toEqual({ now: now + 1000 });
    expect(await json(await admin('POST', '/clock', { to: now + 5000 }))).toEqual({ now: now + 5000 });
    expect((await admin('POST', '/clock', { to: now })).status).toBe(400);
    expect((await admin('POST', '/clock', { advance_ms: -1 })).status).toBe(400);
    expect((await admin('POST', '/clock', {})).status).toBe(400);
    expect((await admin('GET', '/clock')).headers.get('x-api-version')).toMatch(/^1\.\d$/);
  });

  it('switches a synthetic firehose on and off, fed as the manual clock moves', async () => {
    await admin('POST', '/accounts', { username: 'op-fire' });
    const on = await admin('POST', '/accounts/op-fire/firehose', { service: 'facebook', perMinute: 30, seed: 3 });
    expect(on.status).toBe(200);
    expect(await json(on)).toMatchObject({ on: true, options: { service: 'facebook', perMinute: 30, seed: 3 } });
    expect((await admin('POST', '/accounts/op-fire/firehose', { service: 'myspace' })).status).toBe(400);
    expect((await admin('POST', '/accounts/nobody/firehose', {})).status).toBe(404);
    const { now } = await json(await admin('POST', '/clock', { advance_ms: 10 * 60_000 }));
    // Read straight from the core: the clock move itself fed it, not this read.
    expect((await firehose.state(sdp.engine, 'op-fire')).fedUntil).toBe(now);
    const off = await admin('DELETE', '/accounts/op-fire/firehose');
    expect(await json(off)).toMatchObject({ on: false });
    expect((await json(await admin('GET', '/accounts/op-fire/firehose'))).on).toBe(false);
  });

  it('tells how far the recording index trails the log, and a call that reads it catches it up (project addition)', async () => {
    const opened = await json(await admin('POST', '/accounts', { username: 'op-index' }));
    const before = await json(await admin('GET', '/recording-index'));
    // The account just opened was written after the index last read the log.
    expect(before.lag).toBeGreaterThan(0);
    expect(before.lag).toBe(before.head - before.checkpoint);
    expect((await api('/v1.5/usage', { user: ['op-index', opened.api_key] })).status).toBe(200);
    const after = await json(await admin('GET', '/recording-index'));
    expect(after.checkpoint).toBeGreaterThanOrEqual(before.head);
    expect(after.lag).toBe(after.head - after.checkpoint);
    expect((await admin('POST', '/recording-index')).status).toBe(405);
  });

  it('answers 404 for unknown operator paths and 405 with Allow for other methods', async () => {
    expect((await admin('GET', '/nothing')).status).toBe(404);
    const r = await admin('DELETE', '/clock');
    expect(r.status).toBe(405);
    expect(r.headers.get('allow')).toBe('GET, POST');
  });
});

describe('rate-limit refusals and the reset, through the operator API', () => {
  it('refuses with 403 before 1.2 and 429 from 1.2, then serves again once the manual clock passes the reset', async () => {
    const created = await json(await admin('POST', '/accounts', { username: 'limited', package: { credits_per_hour: 30 } }));
    const user: [string, string] = ['limited', created.api_key];
    // The stream product spends the whole allowance, so every charged API call is refused at step 6.
    const charged = await json(await admin('POST', '/accounts/limited/charge', { cost: 30, product: 'stream' }));
    expect(charged.remaining).toBe(0);
    const before = await sdp.store.head();
    for (const [version, status] of [['v1', 403], ['v1.1', 403], ['v1.2', 429], ['v1.5', 429]] as const) {
      const r = await api(`/${version}/account/identity`, { user });
      expect(r.status).toBe(status);
      expect(typeof (await json(r)).error).toBe('string');
      expect(Number(r.headers.get('x-ratelimit-cost'))).toBeGreaterThan(Number(r.headers.get('x-ratelimit-remaining')));
      expect(r.headers.get('x-ratelimit-remaining')).toBe('0');
      expect(Number(r.headers.get('x-ratelimit-reset'))).toBe(charged.reset);
    }
    expect(await sdp.store.head()).toBe(before);

    const { now } = await json(await admin('GET', '/clock'));
    await admin('POST', '/clock', { to: charged.reset * 1000 });
    expect((await json(await admin('GET', '/accounts/limited'))).allowances.general.remaining).toBe(30);
    const again = await api('/v1.5/account/identity', { user });
    expect(again.status).not.toBe(429);
    expect(Number(again.headers.get('x-ratelimit-reset'))).toBe(charged.reset + 3600);
    expect(now).toBeLessThan(charged.reset * 1000);
  });

  it('empties the store on reset', async () => {
    await admin('POST', '/accounts', { username: 'gone-soon' });
    expect((await admin('POST', '/reset')).status).toBe(204);
    expect((await admin('GET', '/accounts/gone-soon')).status).toBe(404);
    expect(await sdp.store.head()).toBe(0);
  });
});

describe('a tour of the catalogue over a socket: every group, several versions', () => {
  const versions: VersionId[] = ['1.0', '1.2', '1.5'];
  const stops = ENDPOINTS.flatMap((e: Endpoint) =>
    versions.flatMap((v) => {
      const forms = e.forms.filter((f) => atLeast(v, f.from));
      const form = forms[forms.length - 1];
      return form ? [{ e, v, path: samplePath(form.template) }] : [];
    }),
  );
  let user: [string, string];
  beforeAll(async () => {
    const created = await json(await admin('POST', '/accounts', { username: 'tourist', package: { credits_per_hour: 1e9, analyze_credits_per_hour: 1e9 } }));
    user = ['tourist', created.api_key];
  });

  it('covers every group of the catalogue', () => {
    expect(new Set(stops.map((s) => s.e.group))).toEqual(new Set(ENDPOINTS.map((e) => e.group)));
    expect(VERSIONS.length).toBeGreaterThanOrEqual(versions.length);
  });

  it.each(stops.map((s) => [s.e.id, s.v, s] as const))('%s in %s', async (_id, _v, { e, v, path }) => {
    const method = e.methods[0]!;
    const prefix = v === '1.0' ? '' : `/v${v}`;
    const headBefore = await sdp.store.head();
    const r = await api(prefix + path, { method, user, ...(method === 'GET' || method === 'DELETE' ? {} : { headers: { 'content-type': 'application/json' }, body: '{}' }) });
    expect(r.headers.get('x-api-version')).toBe(v);
    expect(r.headers.get('access-control-allow-origin')).toBe('*');
    const rateNames = ['limit', 'remaining', 'cost', 'reset', 'reset-ttl'].map((n) => `x-ratelimit-${n}`);
    if (e.allowance !== 'none') for (const n of rateNames) expect(r.headers.get(n), n).toMatch(/^\d+$/);
    if (e.allowance !== 'none') expect(r.headers.get('x-ratelimit-cost')).toBe(String(e.cost));
    const text = await r.text();
    if (r.status === 204) expect(text).toBe('');
    else {
      expect(r.headers.get('content-type')).toBe('application/json; charset=utf-8');
      const body = JSON.parse(text);
      if (r.status >= 400) expect(typeof body.error).toBe('string');
    }
    if (!sdp.engine.handles(e.id)) {
      // Not built yet: 501 and nothing charged (docs/contract.md#judgement-order: a 5xx charges nothing).
      expect(r.status).toBe(501);
      expect(await sdp.store.head()).toBe(headBefore);
    } else {
      expect(r.status, text).toBeLessThan(500);
      if (r.status < 300) expect(e.success).toContain(r.status);
    }
  });
});

describe('settings that shape the wire', () => {
  it('serves the product word, opens --accounts, and keeps the operator API off without a token', async () => {
    const file = join(dir, 'accounts.json');
    writeFileSync(file, JSON.stringify([{ username: 'filed', api_key: 'filed-key-0001', package: { credits_per_hour: 50 } }]));
    const other = await startServer(settings({ product: 'pylon', adminToken: undefined, accountsFile: file }));
    try {
      expect(other.accounts.opened).toEqual(['filed']);
      expect(other.demo).toBeUndefined();
      const r = await fetch(`${other.url}/v1.5/pylon/validate`, { method: 'GET' });
      expect(r.status).toBe(405);
      expect((await fetch(`${other.url}/v1.5/pylon/nothing`)).status).toBe(404);
      // Off, the operator API and the console answer as any path the server does not have: the same
      // status, message (but for the path) and header names, so their presence does not show.
      const unknown = async (path: string, init: RequestInit = {}) => {
        const r = await fetch(other.url + path, init);
        const body = (await json(r)) as { error: string };
        return { status: r.status, error: body.error.replace(path, '<path>'), headers: [...r.headers.keys()].sort() };
      };
      for (const method of ['GET', 'POST', 'DELETE']) {
        const absent = await unknown('/_nowhere/clock', { method });
        expect(absent.status).toBe(404);
        for (const path of ['/_admin/clock', '/_admin/accounts', '/_admin/reset', '/_admin', '/_console', '/_console/app.js']) {
          expect(await unknown(path, { method, headers: { authorization: `Bearer ${TOKEN}` } }), `${method} ${path}`).toEqual(absent);
        }
      }
      const id = await fetch(`${other.url}/v1.5/account/identity`, { headers: { authorization: 'filed:filed-key-0001' } });
      expect(id.headers.get('x-ratelimit-limit')).toBe('50');
    } finally {
      await other.close();
    }
  });

  it('opens --accounts entries without a key with a generated one it reports, and refuses an empty key', async () => {
    const file = join(dir, 'generated.json');
    writeFileSync(file, JSON.stringify([{ username: 'keyless', package: { credits_per_hour: 50 } }, { username: 'keyed', api_key: 'keyed-key-0001' }]));
    const s = await startServer(settings({ accountsFile: file, accessLog: 'off' }));
    try {
      expect(s.accounts.opened).toEqual(['keyless', 'keyed']);
      expect(s.accounts.generated).toHaveLength(1);
      const { username, apiKey } = s.accounts.generated[0]!;
      expect(username).toBe('keyless');
      expect(apiKey).toMatch(/^[0-9a-f]{32}$/);
      // The key reported is the account's key.
      const r = await fetch(`${s.url}/v1.5/account/identity`, { headers: { authorization: `keyless:${apiKey}` } });
      expect(r.headers.get('x-ratelimit-limit')).toBe('50');
    } finally {
      await s.close();
    }
    const empty = join(dir, 'empty-key.json');
    writeFileSync(empty, JSON.stringify([{ username: 'blank', api_key: '' }]));
    await expect(startServer(settings({ accountsFile: empty, accessLog: 'off' }))).rejects.toThrow(/--accounts .*empty-key\.json: entry 0: .*key/i);
  });

  it('lets in-flight requests finish when it closes, then refuses new connections', async () => {
    const file = join(dir, 'inflight.json');
    writeFileSync(file, JSON.stringify([{ username: 'busy', api_key: 'busy-key-0001', package: { credits_per_hour: 1e9 } }]));
    const s = await startServer(settings({ accountsFile: file, accessLog: 'off' }));
    // Bodies that arrive slowly: the requests are in flight (headers read, body coming) when close starts.
    const slowBody = (label: string) =>
      new ReadableStream<Uint8Array>({
        async start(c) {
          c.enqueue(new TextEncoder().encode('{"label":'));
          await new Promise((r) => setTimeout(r, 400));
          c.enqueue(new TextEncoder().encode(JSON.stringify(label) + '}'));
          c.close();
        },
      });
    const inFlight = Array.from({ length: 5 }, (_, i) =>
      fetch(`${s.url}/v1.5/account/identity`, {
        method: 'POST',
        headers: { authorization: 'busy:busy-key-0001', 'content-type': 'application/json' },
        body: slowBody(`slow-${i}`),
        duplex: 'half',
      } as RequestInit).then((r) => r.status),
    );
    const connections = () => new Promise<number>((r) => s.http.server.getConnections((_, n) => r(n)));
    while ((await connections()) < 5) await new Promise((r) => setTimeout(r, 10));
    await new Promise((r) => setTimeout(r, 100));
    const closed = s.close();
    const statuses = await Promise.all(inFlight);
    await closed;
    expect(statuses).toEqual([201, 201, 201, 201, 201]);
    await expect(fetch(`${s.url}/v1.5/account/identity`)).rejects.toThrow();
  });

  it('answers 409 to moving a system clock', async () => {
    const sys = await startServer(settings({ clock: 'system' }));
    try {
      const r = await fetch(`${sys.url}/_admin/clock`, { method: 'POST', headers: { authorization: `Bearer ${TOKEN}` }, body: '{"advance_ms":1}' });
      expect(r.status).toBe(409);
      expect((await json(await fetch(`${sys.url}/_admin/clock`, { headers: { authorization: `Bearer ${TOKEN}` } }))).kind).toBe('system');
    } finally {
      await sys.close();
    }
  });

  it('writes one JSON access-log line per request', async () => {
    // Lines are written in batches: a quiet server's reach the file within FLUSH_MS.
    const read = () => readFileSync(join(dir, 'access.log'), 'utf8').trim().split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as { time: string; username?: string; cost?: unknown });
    // This file's servers share the log: wait for the main server's lines (a charged call of `tourist`),
    // not merely for some lines (another server's, flushed as it closed, may be all there is yet).
    await expect.poll(() => read().some((l) => l.username === 'tourist' && typeof l.cost === 'number'), { timeout: FLUSH_MS * 5, interval: 100 }).toBe(true);
    const lines = read();
    expect(lines.length).toBeGreaterThan(10);
    for (const l of lines) expect(Object.keys(l).sort()).toEqual(['cost', 'level', 'method', 'ms', 'path', 'status', 'time', 'username']);
    for (const l of lines) expect(new Date(l.time).toISOString()).toBe(l.time);
  });
});

describe("the console's write log (docs/console.md)", () => {
  it('records the position range of each write the API makes, on a server with an operator token', async () => {
    const opened = await json(await admin('POST', '/accounts', { username: 'wl-ann' }));
    const before = (await json(await admin('GET', '/writes'))).writes as [number, number][];
    const r = await api('/v1.5/validate', { method: 'POST', user: ['wl-ann', opened.api_key], headers: { 'content-type': 'application/json' }, body: JSON.stringify({ csdl: 'interaction.content contains "x"' }) });
    expect(r.status).toBe(200);
    const after = (await json(await admin('GET', '/writes'))).writes as [number, number][];
    expect(after).toHaveLength(before.length + 1);
    // The call's one write (its charge) comes after every write before it.
    const [first, last] = after[after.length - 1]!;
    expect(first).toBe(last);
    expect(first).toBeGreaterThan(before.length > 0 ? before[before.length - 1]![1] : 0);
  });
});
