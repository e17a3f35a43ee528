import { uniformFloat64 } from 'pure-rand/distribution/uniformFloat64';
import { xoroshiro128plus } from 'pure-rand/generator/xoroshiro128plus';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { defaultSettings } from './settings.ts';
import { startServer, type RunningSdp } from './server.ts';

const T0 = Date.parse('2026-03-02T08:05:37Z');
const TOKEN = 'faults-token';
let sdp: RunningSdp;
let user: [string, string];
// eslint-disable-next-line
type Json = any;

const admin = async (method: string, path: string, body?: unknown): Promise<{ status: number; body: Json }> => {
  const r = await fetch(`${sdp.url}/_admin${path}`, {
    method,
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await r.text();
  return { status: r.status, body: text ? JSON.parse(text) : undefined };
};
const api = (path: string, init: RequestInit = {}, who: [string, string] = user) =>
  fetch(`${sdp.url}${path}`, { ...init, headers: { authorization: `${who[0]}:${who[1]}`, 'content-type': 'application/json', ...(init.headers as object) } });
const validate = () => api('/v1.5/validate', { method: 'POST', body: JSON.stringify({ csdl: 'fb.content contains "x"' }) });
const remaining = async () => (await admin('GET', `/accounts/${user[0]}`)).body.allowances.general.remaining as number;

beforeAll(async () => {
  sdp = await startServer({ ...defaultSettings(), port: 0, store: 'memory:', clock: 'manual', clockStartMs: T0, adminToken: TOKEN, accessLog: 'off' });
  const opened = await admin('POST', '/accounts', { username: 'flaky', package: { credits_per_hour: 1000 } });
  user = ['flaky', opened.body.api_key];
});
afterAll(() => sdp.close());
beforeEach(async () => {
  await admin('DELETE', '/faults');
});

describe('injected faults (/_admin/faults)', () => {
  it('a count-limited 503 answers exactly N times with Retry-After, charges nothing, then lets calls through', async () => {
    expect((await validate()).status).toBe(200);
    const before = await remaining();
    const rule = await admin('POST', '/faults', { status: 503, retry_after: 7, username: 'flaky', endpoint: 'core.validate', count: 2 });
    expect(rule.status).toBe(201);
    expect(rule.body).toMatchObject({ status: 503, remaining: 2, retry_after: 7, username: 'flaky', endpoint: 'core.validate' });
    for (let i = 0; i < 2; i++) {
      const r = await validate();
      expect(r.status).toBe(503);
      expect(r.headers.get('retry-after')).toBe('7');
      expect(r.headers.get('x-api-version')).toBe('1.5');
      expect(((await r.json()) as Json).error).toMatch(/Injected fault/);
    }
    expect(await remaining()).toBe(before);
    expect((await admin('GET', '/faults')).body.faults).toEqual([]);
    expect((await validate()).status).toBe(200);
    expect(await remaining()).toBe(before - 5);
  });

  it('matches only its account and endpoint', async () => {
    await admin('POST', '/faults', { status: 500, username: 'someone-else' });
    await admin('POST', '/faults', { status: 502, endpoint: 'core.compile' });
    expect((await validate()).status).toBe(200);
    expect((await api('/v1.5/compile', { method: 'POST', body: JSON.stringify({ csdl: 'fb.content contains "x"' }) })).status).toBe(502);
  });

  it('a probabilistic rule over a seeded generator fires on exactly the draws below its probability', async () => {
    const seed = 20260302;
    const runOnce = async () => {
      await admin('DELETE', '/faults');
      expect((await admin('POST', '/faults/seed', { seed })).status).toBe(204);
      await admin('POST', '/faults', { status: 504, probability: 0.3, endpoint: 'core.validate' });
      const statuses: number[] = [];
      for (let i = 0; i < 40; i++) statuses.push((await validate()).status);
      return statuses;
    };
    const first = await runOnce();
    const rng = xoroshiro128plus(seed);
    const expected = Array.from({ length: 40 }, () => (uniformFloat64(rng) < 0.3 ? 504 : 200));
    expect(first).toEqual(expected);
    expect(first.filter((s) => s === 504).length).toBeGreaterThan(0);
    expect(await runOnce()).toEqual(first);
  });

  it('adds latency, and then the call is served and charged as usual', async () => {
    const before = await remaining();
    await admin('POST', '/faults', { delay_ms: 250, endpoint: 'core.validate', count: 1 });
    const started = performance.now();
    expect((await validate()).status).toBe(200);
    expect(performance.now() - started).toBeGreaterThanOrEqual(245);
    expect(await remaining()).toBe(before - 5);
  });

  it('drops the connection without an answer, charging nothing', async () => {
    const before = await remaining();
    await admin('POST', '/faults', { drop: true, count: 1 });
    await expect(validate()).rejects.toThrow();
    expect(await remaining()).toBe(before);
    expect((await validate()).status).toBe(200);
  });

  it('lists and removes rules one by one, and refuses bad ones', async () => {
    const a = (await admin('POST', '/faults', { status: 500 })).body;
    const b = (await admin('POST', '/faults', { status: 502, probability: 0.5 })).body;
    expect((await admin('GET', '/faults')).body.faults.map((r: Json) => r.id)).toEqual([a.id, b.id]);
    expect((await admin('DELETE', `/faults/${a.id}`)).status).toBe(204);
    expect((await admin('DELETE', `/faults/${a.id}`)).status).toBe(404);
    expect((await admin('GET', '/faults')).body.faults).toEqual([b]);
    for (const bad of [{ status: 418 }, {}, { status: 500, endpoint: 'no.such' }, { status: 500, probability: 2 }, { status: 500, count: 0 }, { drop: true, status: 500 }, { status: 500, colour: 'red' }]) {
      expect((await admin('POST', '/faults', bad)).status).toBe(400);
    }
  });
});

describe('semantic faults (/_admin/faults/effects)', () => {
  it('exhausting an allowance makes the next call a rate-limit refusal', async () => {
    const r = await admin('POST', '/faults/effects', { effect: 'exhaust_allowance', username: 'flaky' });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ effect: 'exhaust_allowance', allowance: 'general', remaining: 0 });
    const refused = await validate();
    expect(refused.status).toBe(429);
    expect(refused.headers.get('x-ratelimit-remaining')).toBe('0');
    await admin('POST', '/clock', { advance_ms: 3_600_000 });
    expect((await validate()).status).toBe(200);
  });

  it('filling the task queue makes the next task a full-queue refusal; reaching the capacity shows on the recording', async () => {
    const compiled = await (await api('/v1.5/compile', { method: 'POST', body: JSON.stringify({ csdl: 'fb.content contains "x"' }) })).json() as Json;
    const started = await (await api('/v1.5/insight/start', { method: 'POST', body: JSON.stringify({ hash: compiled.hash, name: 'r' }) })).json() as Json;
    expect((await admin('POST', '/faults/effects', { effect: 'fill_task_queue', username: 'flaky' })).status).toBe(200);
    const task = await api('/v1.5/insight/facebook/task', {
      method: 'POST',
      body: JSON.stringify({ subscription_id: started.id, name: 't', parameters: { parameters: { analysis_type: 'freqDist', parameters: { target: 'fb.author.gender', threshold: 2 } } } }),
    });
    expect(task.status).toBe(429);
    expect(((await task.json()) as Json).error).toMatch(/queue is full/);

    expect((await admin('POST', '/faults/effects', { effect: 'reach_recording_capacity', username: 'flaky' })).status).toBe(200);
    const got = await (await api(`/v1.5/insight/get?id=${started.id}`)).json() as Json;
    expect(got).toMatchObject({ reached_capacity: true, remaining_account_capacity: 0 });

    expect((await admin('POST', '/faults/effects', { effect: 'flood', username: 'flaky' })).status).toBe(400);
    expect((await admin('POST', '/faults/effects', { effect: 'fill_task_queue', username: 'nobody' })).status).toBe(404);
  });
});
