/**
 * The measured attacks of "bounded by design" replayed over a real socket: what one tenant sends is
 * refused with a clear 4xx before the machine is hurt, another account is served meanwhile, and a
 * durable store still starts afterwards.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { defaultSettings, type ServerSettings } from './settings.ts';
import { startServer, type RunningSdp } from './server.ts';

const T0 = Date.parse('2026-03-02T08:00:00Z');
const TOKEN = 'bounded-token';
const dir = mkdtempSync(join(tmpdir(), 'sdp-bounded-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
// eslint-disable-next-line
type Json = any;

const settingsFor = (store: string): ServerSettings => ({ ...defaultSettings(), port: 0, store, clock: 'manual', clockStartMs: T0, adminToken: TOKEN, accessLog: 'off' });

const admin = async (sdp: RunningSdp, method: string, path: string, body?: unknown): Promise<Json> => {
  const r = await fetch(`${sdp.url}/_admin${path}`, {
    method,
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  return r.json();
};

interface Answer {
  status: number;
  body: Json;
  headers: Headers;
}

async function account(sdp: RunningSdp, username: string, pkg?: Record<string, unknown>) {
  const { api_key: key } = await admin(sdp, 'POST', '/accounts', { username, ...(pkg ? { package: pkg } : {}) });
  const call = async (path: string, params: Record<string, unknown> = {}, headers: Record<string, string> = {}): Promise<Answer> => {
    const r = await fetch(`${sdp.url}/v1.5${path}`, {
      method: 'POST',
      headers: { authorization: `${username}:${key}`, 'content-type': 'application/json', ...headers },
      body: JSON.stringify(params),
    });
    const text = await r.text();
    // A pull page in json_new_line is lines of JSON, not one document.
    const json = (r.headers.get('content-type') ?? '').includes('json') && !(r.headers.get('x-datasift-format') ?? '').includes('new_line');
    return { status: r.status, body: text && json ? JSON.parse(text) : text, headers: r.headers };
  };
  const remaining = async (): Promise<number> => (await admin(sdp, 'GET', `/accounts/${username}`)).allowances.general.remaining;
  return { call, remaining, username, key };
}

/** Median milliseconds of `n` calls of `run`, one after another. */
async function median(n: number, run: () => Promise<unknown>): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await run();
    times.push(performance.now() - t);
  }
  return times.sort((a, b) => a - b)[Math.floor(n / 2)]!;
}

const stores: Array<[string, () => string]> = [
  ['memory', () => 'memory:'],
  ['SQLite', () => `sqlite:${join(dir, `bounded-${Math.random().toString(16).slice(2)}.db`)}`],
];

describe.each(stores)('bounded by design over a real socket on the %s store', (name, storeOf) => {
  it('a free pull repeated under new Idempotency-Keys keeps no page: the retry answers 409, the keys stop at the package field, the store stays small and starts again', async () => {
    const store = storeOf();
    let sdp = await startServer(settingsFor(store));
    try {
      const mallory = await account(sdp, 'mallory', { idempotency_keys: 40 });
      const { hash } = (await mallory.call('/compile', { csdl: 'fb.content contains "coffee"' })).body;
      expect((await mallory.call('/insight/start', { hash, name: 'coffee', service: 'facebook' })).status).toBe(200);
      const sub = (await mallory.call('/push/create', { name: 'pull', output_type: 'pull', hash })).body;
      const source = (await mallory.call('/source/create', { source_type: 'twitter_gnip', name: 'feed', resources: [{ parameters: { mapping: 'gnip_1' } }] })).body;
      expect((await mallory.call('/source/start', { id: source.id })).status).toBe(200);
      // About 1 MB of matching interactions, ingested free.
      const lines = Array.from({ length: 250 }, (_, i) => JSON.stringify({ interaction: { id: `i${i}`, content: `coffee ${'x'.repeat(4000)}` }, fb: { content: `coffee ${i}` } }));
      const ingested = await fetch(`${sdp.url}/v1.5/ingest/${source.id}`, { method: 'POST', headers: { authorization: `mallory:${mallory.key}` }, body: lines.join('\n') });
      expect(ingested.status).toBe(200);
      await admin(sdp, 'POST', '/clock', { advance_ms: 1000 });

      expect((await mallory.call('/pull', { id: sub.id, size: 52_428_801 })).status).toBe(400);
      const first = await mallory.call('/pull', { id: sub.id }, { 'Idempotency-Key': 'p0' });
      expect(first.status).toBe(200);
      const cursor = first.headers.get('x-datasift-cursor-current')!;
      expect(String(first.body).length).toBeGreaterThan(1_000_000);
      const retry = await mallory.call('/pull', { id: sub.id }, { 'Idempotency-Key': 'p0' });
      expect(retry.status).toBe(409);
      expect(retry.body.error).toMatch(/kept for replays/);
      expect(retry.headers.get('idempotent-replayed')).toBe('true');

      // The same megabyte page asked again and again under new keys: served, and none of it kept.
      const head = await sdp.store.head();
      for (let k = 1; k < 40; k++) expect((await mallory.call('/pull', { id: sub.id, cursor }, { 'Idempotency-Key': `p${k}` })).status).toBe(200);
      const written = (await sdp.store.readAll(head)).reduce((n, e) => n + JSON.stringify(e.data).length, 0);
      expect(written).toBeLessThan(39 * 2_000);
      const past = await mallory.call('/pull', { id: sub.id, cursor }, { 'Idempotency-Key': 'p40' });
      expect(past.status).toBe(403);
      expect(past.body.error).toMatch(/idempotency_keys/);
      expect(past.headers.get('x-ratelimit-remaining')).not.toBeNull();
      if (name === 'SQLite') expect(statSync(store.slice('sqlite:'.length)).size).toBeLessThan(20_000_000);
    } finally {
      await sdp.close();
    }
    if (name !== 'SQLite') return;
    sdp = await startServer(settingsFor(store));
    try {
      const again = await admin(sdp, 'GET', '/accounts/mallory');
      expect(again.username).toBe('mallory');
    } finally {
      await sdp.close();
    }
  });

  it('stored parameters are bounded and subscriptions stop at the package field; another account is served meanwhile; the store starts again', async () => {
    const store = storeOf();
    let sdp = await startServer(settingsFor(store));
    try {
      const mallory = await account(sdp, 'mallory', { push_subscriptions: 25, managed_sources: 3 });
      const alice = await account(sdp, 'alice');
      const validate = () => alice.call('/validate', { csdl: 'fb.content contains "tea"' });
      const quiet = await median(15, validate);

      const { hash } = (await mallory.call('/compile', { csdl: 'fb.content contains "coffee"' })).body;
      const big = Object.fromEntries(['a', 'b', 'c', 'd'].map((k) => [k, 'x'.repeat(900_000)]));
      const before = await mallory.remaining();
      const refused = await mallory.call('/push/create', { name: 'huge', output_type: 'pull', hash, output_params: { format: 'json_meta', ...big } });
      expect(refused.status).toBe(400);
      expect(refused.body.error).toMatch(/output_params is over the limit of 32768 characters/);
      // A step-7 refusal is charged, and the headers say what was charged.
      expect(before - (await mallory.remaining())).toBe(Number(refused.headers.get('x-ratelimit-cost')));

      // Just under the bound, up to the package's count, while another account calls.
      const settings = { format: 'json_meta', note: 'y'.repeat(30_000) };
      let busy: number | undefined;
      const during = (async () => {
        await new Promise((r) => setTimeout(r, 5));
        busy = await median(15, validate);
      })();
      for (let i = 0; i < 25; i++) expect((await mallory.call('/push/create', { name: `s${i}`, output_type: 'pull', hash, output_params: settings })).status).toBe(200);
      await during;
      const over = await mallory.call('/push/create', { name: 'one more', output_type: 'pull', hash, output_params: settings });
      expect(over.status).toBe(403);
      expect(over.body.error).toMatch(/allows 25 push subscriptions \(push_subscriptions\)/);
      // Growing the stored settings by updates is bounded as well.
      const someone = (await mallory.call('/push/get', {})).body.subscriptions[0];
      const grown = await mallory.call('/push/update', { id: someone.id, output_params: { more: 'z'.repeat(10_000) } });
      expect(grown.status).toBe(400);
      // A whole page of the largest subscriptions encodes and is charged as its headers say.
      const page = await mallory.call('/push/get', { per_page: 200 });
      expect(page.status).toBe(200);
      expect(page.body.subscriptions).toHaveLength(25);

      // Sources: settings bounded, count bounded.
      const src = (params: Record<string, unknown>) => mallory.call('/source/create', { source_type: 'twitter_gnip', name: 'feed', resources: [{ parameters: { mapping: 'gnip_1' } }], ...params });
      expect((await src({ parameters: { blob: 'x'.repeat(40_000) } })).status).toBe(400);
      for (let i = 0; i < 3; i++) expect((await src({})).status).toBe(201);
      expect((await src({})).status).toBe(403);

      // Another account's calls stayed within a bound of the quiet case (generous: this machine is shared).
      expect(busy!).toBeLessThan(Math.max(quiet * 20, 50));
      if (name === 'SQLite') expect(statSync(store.slice('sqlite:'.length)).size).toBeLessThan(20_000_000);
    } finally {
      await sdp.close();
    }
    if (name !== 'SQLite') return;
    const rss = process.memoryUsage().rss;
    sdp = await startServer(settingsFor(store));
    try {
      expect((await admin(sdp, 'GET', '/accounts/mallory')).username).toBe('mallory');
      expect(process.memoryUsage().rss - rss).toBeLessThan(200_000_000);
    } finally {
      await sdp.close();
    }
  });

  it('cheap calls after a large free ingestion take the time of what they return, and another account is served meanwhile', async () => {
    const sdp = await startServer(settingsFor(storeOf()));
    try {
      const mallory = await account(sdp, 'mallory', { index_capacity_per_month: 1e9 });
      const alice = await account(sdp, 'alice');
      const { hash } = (await mallory.call('/compile', { csdl: 'fb.content contains "coffee"' })).body;
      expect((await mallory.call('/insight/start', { hash, name: 'coffee', service: 'facebook' })).status).toBe(200);
      const sub = (await mallory.call('/push/create', { name: 'pull', output_type: 'pull', hash, output_params: { format: 'json_array' } })).body;
      const source = (await mallory.call('/source/create', { source_type: 'twitter_gnip', name: 'feed', resources: [{ parameters: { mapping: 'gnip_1' } }] })).body;
      expect((await mallory.call('/source/start', { id: source.id })).status).toBe(200);
      let n = 0;
      const ingest = async (count: number) => {
        const lines = Array.from({ length: count }, () => JSON.stringify({ interaction: { id: `i${n}` }, fb: { content: `coffee ${n++}` } }));
        const r = await fetch(`${sdp.url}/v1.5/ingest/${source.id}`, { method: 'POST', headers: { authorization: `mallory:${mallory.key}` }, body: lines.join('\n') });
        expect(r.status).toBe(200);
        await admin(sdp, 'POST', '/clock', { advance_ms: 60_000 });
      };
      const cheap = async () => {
        await mallory.call('/pull', { id: sub.id, size: 1000 });
        await mallory.call('/push/get', { per_page: 100 });
        await fetch(`${sdp.url}/v1.5/account/usage`, { headers: { authorization: `mallory:${mallory.key}` } });
      };
      await ingest(2_000);
      const small = await median(9, cheap);
      for (let i = 0; i < 9; i++) await ingest(2_000);
      const large = await median(9, cheap);
      // Ten times the history: the same work, within the noise of a shared machine.
      expect(large).toBeLessThan(Math.max(small * 4, 30));

      const validate = () => alice.call('/validate', { csdl: 'fb.content contains "tea"' });
      const quiet = await median(15, validate);
      let stop = false;
      const attacker = (async () => {
        while (!stop) await cheap();
      })();
      const busy = await median(15, validate);
      stop = true;
      await attacker;
      expect(busy).toBeLessThan(Math.max(quiet * 20, 50));
    } finally {
      await sdp.close();
    }
  });
});
