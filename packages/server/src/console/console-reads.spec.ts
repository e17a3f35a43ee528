import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultSettings, type ServerSettings } from '../settings.ts';
import { startServer, type RunningSdp } from '../server.ts';

const T0 = Date.parse('2026-03-02T08:05:37Z');
const TOKEN = 'console-reads-token';

let sdp: RunningSdp;
const settings = (over: Partial<ServerSettings> = {}): ServerSettings => ({
  ...defaultSettings(), port: 0, store: 'memory:', clock: 'manual', clockStartMs: T0, adminToken: TOKEN, accessLog: 'off', ...over,
});
// eslint-disable-next-line
const admin = async (method: string, path: string, body?: unknown): Promise<any> => {
  const r = await fetch(`${sdp.url}/_admin${path}`, {
    method,
    headers: { authorization: `Bearer ${TOKEN}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  return { status: r.status, body: r.status === 204 ? null : await r.json() };
};
const call = (path: string, user: string, key: string, form: Record<string, string>) =>
  fetch(`${sdp.url}${path}`, { method: 'POST', headers: { authorization: `${user}:${key}`, 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(form) });

beforeAll(async () => {
  sdp = await startServer(settings());
});
afterAll(() => sdp.close());

describe('the operator reads the console shows', () => {
  it('lists every account with its gauges, the latest charges first', async () => {
    const opened = (await admin('POST', '/accounts', { username: 'reader-a', package: { credits_per_hour: 100, task_slots: 2 } })).body;
    await admin('POST', '/accounts', { username: 'reader-b' });
    expect((await call('/v1.5/validate', 'reader-a', opened.api_key, { csdl: 'fb.content contains "tea"' })).status).toBe(200);
    expect((await call('/v1.5/compile', 'reader-a', opened.api_key, { csdl: 'fb.content contains "coffee"' })).status).toBe(200);

    const list = await admin('GET', '/accounts');
    expect(list.status).toBe(200);
    expect(list.body.now).toBe(T0);
    expect(list.body.kind).toBe('manual');
    expect(list.body.head).toBeGreaterThan(0);
    const names = list.body.accounts.map((a: { username: string }) => a.username);
    expect(names.indexOf('reader-a')).toBeLessThan(names.indexOf('reader-b'));
    const a = list.body.accounts.find((x: { username: string }) => x.username === 'reader-a');
    expect(a.allowances.general).toMatchObject({ limit: 100, remaining: 90 });
    expect(a.recent_charges.map((c: { endpoint: string; cost: number }) => [c.endpoint, c.cost])).toEqual([['core.compile', 5], ['core.validate', 5]]);
    expect(a.task_queues).toEqual([{ slot: 0, queued: 0, finishes: [] }, { slot: 1, queued: 0, finishes: [] }]);
    expect(a.capacity_today).toMatchObject({ used: 0, limit: 1_000_000, day: '2026-03-02' });
  });

  it('starts over after a reset, so the list holds only accounts opened since', async () => {
    await admin('POST', '/reset');
    await admin('POST', '/accounts', { username: 'after-reset' });
    const names = (await admin('GET', '/accounts')).body.accounts.map((a: { username: string }) => a.username);
    expect(names).toEqual(['after-reset']);
  });

  it("shows an account's resources with their transitions and the calls that caused them", async () => {
    const key = (await admin('POST', '/accounts', { username: 'rec-owner' })).body.api_key;
    const compiled = (await (await call('/v1.5/insight/facebook/compile', 'rec-owner', key, { csdl: 'fb.content contains "tea"' })).json()) as { hash: string };
    const started = await call('/v1.5/insight/facebook/start', 'rec-owner', key, { hash: compiled.hash, name: 'tea talk', service: 'facebook' });
    expect(started.status).toBe(200);
    const id = ((await started.json()) as { id: string }).id;
    expect((await call('/v1.5/insight/facebook/stop', 'rec-owner', key, { id, service: 'facebook' })).status).toBe(204);

    const { status, body } = await admin('GET', '/accounts/rec-owner/resources');
    expect(status).toBe(200);
    const rec = body.resources.find((r: { id: string }) => r.id === id);
    expect(rec).toMatchObject({ kind: 'recordings', name: 'tea talk', state: 'stopped' });
    expect(rec.transitions.map((t: { type: string; state: string; call: { endpoint: string } }) => [t.type, t.state, t.call?.endpoint])).toEqual([
      ['RecordingStarted', 'running', 'insight.start'],
      ['RecordingStopped', 'stopped', 'insight.stop'],
    ]);
    expect(rec.transitions[0].call.cost).toBe(25);

    const identity = (await (await call('/v1.5/account/identity', 'rec-owner', key, { label: 'shop' })).json()) as { id: string };
    const token = await call(`/v1.5/account/identity/${identity.id}/token`, 'rec-owner', key, { service: 'facebook', token: 'a-token' });
    expect(token.status).toBe(201);
    await admin('POST', '/accounts/rec-owner/deny', { reason: 'checking' });
    const after = (await admin('GET', '/accounts/rec-owner/resources')).body.resources;
    expect(after.find((r: { id: string }) => r.id === identity.id)).toMatchObject({
      kind: 'identities',
      name: 'shop',
      state: 'active',
      transitions: [
        { type: 'IdentityCreated', state: 'active', call: { endpoint: 'account.identity.create', cost: 5 } },
        { type: 'IdentityTokenCreated', state: 'active', call: { endpoint: 'account.identity.token.create' } },
      ],
    });
    expect((await admin('GET', '/accounts/nobody/resources')).status).toBe(404);
  });
});

describe('the writes this server recorded', () => {
  it("answers each write's position range, the call's charge and effect as one", async () => {
    await admin('POST', '/reset');
    const key = (await admin('POST', '/accounts', { username: 'writer' })).body.api_key;
    expect((await call('/v1.5/insight/facebook/compile', 'writer', key, { csdl: 'fb.content contains "tea"' })).status).toBe(200);
    // The compile's write: its charge, the definition and the day's definition budget.
    expect((await admin('GET', '/writes')).body).toEqual({ writes: [[1, 1], [2, 4]] });
    expect((await admin('GET', '/writes?after=1')).body).toEqual({ writes: [[2, 4]] });
    expect((await admin('GET', '/writes?after=0&until=1')).body).toEqual({ writes: [[1, 1]] });
    expect((await admin('GET', '/writes?after=-1')).status).toBe(400);
  });
});

describe('the console without a token', () => {
  it('answers 404 at every console path, as the operator API does', async () => {
    const bare = await startServer(settings({ adminToken: undefined }));
    try {
      for (const path of ['/_console', '/_console/', '/_console/app.js', '/_console/console.css', '/_console/vendor/preact.mjs', '/_console/nothing']) {
        expect((await fetch(`${bare.url}${path}`)).status, path).toBe(404);
      }
      expect((await fetch(`${bare.url}/_admin/accounts`, { headers: { authorization: `Bearer ${TOKEN}` } })).status).toBe(404);
    } finally {
      await bare.close();
    }
  });

  it('serves the page with a token, and the data only to the bearer of it', async () => {
    const page = await fetch(`${sdp.url}/_console`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.headers.get('content-security-policy')).toContain("connect-src 'self'");
    expect(await page.text()).toContain('"preact":"/_console/vendor/preact.mjs"');
    expect((await fetch(`${sdp.url}/_console/vendor/hooks.mjs`)).headers.get('content-type')).toMatch(/^text\/javascript/);
    expect((await fetch(`${sdp.url}/_console/nothing`)).status).toBe(404);
    expect((await fetch(`${sdp.url}/_console`, { method: 'POST' })).status).toBe(405);
    expect((await fetch(`${sdp.url}/_admin/accounts`)).status).toBe(401);
  });
});
