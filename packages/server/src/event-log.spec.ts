import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { defaultSettings, type ServerSettings } from './settings.ts';
import { startServer, type RunningSdp } from './server.ts';

const T0 = Date.parse('2026-03-02T08:05:37Z');
const TOKEN = 'events-token';
const dir = mkdtempSync(join(tmpdir(), 'sdp-events-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const settings = (over: Partial<ServerSettings>): ServerSettings => ({ ...defaultSettings(), port: 0, store: 'memory:', clock: 'manual', clockStartMs: T0, adminToken: TOKEN, accessLog: 'off', ...over });
const admin = (sdp: RunningSdp, method: string, path: string, body?: string, type = 'application/json') =>
  fetch(`${sdp.url}/_admin${path}`, { method, headers: { authorization: `Bearer ${TOKEN}`, 'content-type': type }, ...(body !== undefined ? { body } : {}) });
const api = (sdp: RunningSdp, path: string, user: [string, string], init: RequestInit = {}) =>
  fetch(`${sdp.url}${path}`, { ...init, headers: { authorization: `${user[0]}:${user[1]}`, 'content-type': 'application/json', ...(init.headers as object) } });

/** A few calls that touch credits, filters and recordings, answered as seen by the client. */
async function tour(sdp: RunningSdp, user: [string, string]): Promise<unknown[]> {
  const seen: unknown[] = [];
  const look = async (r: Response) => {
    seen.push({ status: r.status, remaining: r.headers.get('x-ratelimit-remaining'), reset: r.headers.get('x-ratelimit-reset'), body: await r.text() });
  };
  await look(await api(sdp, '/v1.5/insight/get', user));
  await look(await api(sdp, '/v1.5/account/usage', user));
  await look(await api(sdp, '/v1.5/account/identity', user));
  return seen;
}

async function history(sdp: RunningSdp): Promise<[string, string]> {
  const opened: { api_key: string } = await (await admin(sdp, 'POST', '/accounts', JSON.stringify({ username: 'fixture', package: { credits_per_hour: 900 } }))).json() as { api_key: string };
  const user: [string, string] = ['fixture', opened.api_key];
  await admin(sdp, 'POST', '/accounts', JSON.stringify({ username: 'other', api_key: 'k'.repeat(32) }));
  await admin(sdp, 'POST', '/accounts/other/deny', JSON.stringify({ reason: 'fixture' }));
  const compiled: { hash: string } = await (await api(sdp, '/v1.5/compile', user, { method: 'POST', body: JSON.stringify({ csdl: 'fb.content contains "coffee"' }) })).json() as { hash: string };
  expect(compiled.hash).toMatch(/^[0-9a-f]{32}$/);
  const started = await api(sdp, '/v1.5/insight/start', user, { method: 'POST', body: JSON.stringify({ hash: compiled.hash, name: 'coffee' }) });
  expect(started.status).toBe(200);
  await api(sdp, '/v1.5/account/identity', user, { method: 'POST', body: JSON.stringify({ label: 'team' }) });
  await admin(sdp, 'POST', '/clock', JSON.stringify({ advance_ms: 90_000 }));
  return user;
}

describe('portable state: GET and POST /_admin/events', () => {
  it('export then import into an empty SQLite store gives the same operator view and the same answers to a tour', async () => {
    const a = await startServer(settings({}));
    const b = await startServer(settings({ store: `sqlite:${join(dir, 'imported.db')}` }));
    try {
      const user = await history(a);
      const exported = await admin(a, 'GET', '/events');
      expect(exported.status).toBe(200);
      expect(exported.headers.get('content-type')).toBe('application/x-ndjson');
      const text = await exported.text();
      const lines = text.trim().split('\n').map((l) => JSON.parse(l));
      expect(lines.length).toBe(await a.store.head());
      expect(lines.map((l) => l.position)).toEqual(lines.map((_, i) => i + 1));

      // The first start opened a demo account in B, untouched: it does not stand in the way of an import.
      expect((await admin(b, 'GET', '/accounts/demo')).status).toBe(200);
      expect((await admin(b, 'POST', '/events', text, 'application/x-ndjson')).status).toBe(204);
      await admin(b, 'POST', '/clock', JSON.stringify({ to: a.clock.now() }));
      expect(await (await admin(b, 'GET', '/events')).text()).toBe(text);

      for (const name of ['fixture', 'other']) {
        expect(await (await admin(b, 'GET', `/accounts/${name}`)).json()).toEqual(await (await admin(a, 'GET', `/accounts/${name}`)).json());
      }
      expect(await tour(b, user)).toEqual(await tour(a, user));
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('a demo account someone used, or anything else written, makes the store not empty: 409', async () => {
    const fresh = await startServer(settings({}));
    try {
      const line = (await (await admin(fresh, 'GET', '/events')).text()).trim();
      const demo = fresh.demo!;
      expect((await api(fresh, '/v1.5/validate', [demo.username, demo.apiKey], { method: 'POST', body: JSON.stringify({ csdl: 'fb.content contains "x"' }) })).status).toBe(200);
      const refused = await admin(fresh, 'POST', '/events', line.replace('"demo"', '"other"').replace('account:demo', 'account:other'), 'application/x-ndjson');
      expect(refused.status).toBe(409);
      expect(((await refused.json()) as { error: string }).error).toMatch(/not empty/);
    } finally {
      await fresh.close();
    }
  });

  it('pages with after and limit, and refuses bad input whole', async () => {
    const a = await startServer(settings({}));
    try {
      await history(a);
      const all = (await (await admin(a, 'GET', '/events')).text()).trim().split('\n');
      const page = (await (await admin(a, 'GET', '/events?after=2&limit=3')).text()).trim().split('\n');
      expect(page).toEqual(all.slice(2, 5));
      expect(await (await admin(a, 'GET', `/events?after=${all.length}`)).text()).toBe('');
      expect((await admin(a, 'GET', '/events?limit=-1')).status).toBe(400);

      // A log longer than one streamed chunk (64 KiB) arrives whole and in order.
      for (let i = 0; i < 400; i++) await a.engine.openAccount({ username: `bulk${i}`, api_key: `k${i}`.padEnd(16, '0') });
      const long = (await (await admin(a, 'GET', '/events')).text()).trim().split('\n');
      expect(long.join('\n').length).toBeGreaterThan(65_536);
      expect(long.length).toBe(await a.store.head());
      expect(long.map((l) => JSON.parse(l).position)).toEqual(long.map((_, i) => i + 1));

      await admin(a, 'POST', '/reset');
      const broken = [all[0], all[2]].join('\n'); // a stream's version 2 without its version 1, or a gap
      const second = JSON.parse(all[1]!);
      const skipping = JSON.stringify({ ...second, version: second.version + 1 });
      for (const bad of ['not json', '{"stream":"x"}', skipping, broken.includes('"version":1') ? `${all[0]}\n${all[0]}` : broken]) {
        const r = await admin(a, 'POST', '/events', bad, 'application/x-ndjson');
        expect(r.status).toBe(400);
        expect(((await r.json()) as { error: string }).error).toMatch(/^line \d+: /);
      }
      expect(await a.store.head()).toBe(0);
    } finally {
      await a.close();
    }
  });

  it('sdp export and sdp import do the same from the command line', async () => {
    const from = join(dir, 'from.db');
    const a = await startServer(settings({ store: `sqlite:${from}` }));
    await history(a);
    const expected = await (await admin(a, 'GET', '/events')).text();
    await a.close();
    const run = (...args: string[]) => promisify(execFile)(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'cli.ts'), ...args], { cwd: join(import.meta.dirname, '..') });
    const file = join(dir, 'fixture.ndjson');
    await run('export', '--store', `sqlite:${from}`, file);
    const to = join(dir, 'to.db');
    await run('import', '--store', `sqlite:${to}`, file);
    const imported = await startServer(settings({ store: `sqlite:${to}` }));
    const again = await (await admin(imported, 'GET', '/events')).text();
    await imported.close();
    expect(again).toBe(expected);
    writeFileSync(join(dir, 'bad.ndjson'), 'nope\n');
    await expect(run('import', '--store', `sqlite:${join(dir, 'empty.db')}`, join(dir, 'bad.ndjson'))).rejects.toThrow(/line 1: not JSON/);
  }, 30_000);
});
