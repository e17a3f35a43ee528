import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { PushDelivery } from '@sdp/core';
import { nodeOutbound } from '@sdp/http';
import { startPushReceiver } from '../test/push-receiver.ts';
import { defaultSettings } from './settings.ts';
import { startServer, type RunningSdp } from './server.ts';

const T0 = Date.parse('2026-03-02T08:00:00Z');
const TOKEN = 'clock-advance-token';
const DAY = 86_400_000;
const SUBSCRIPTIONS = 50;
const dir = mkdtempSync(join(tmpdir(), 'sdp-clock-advance-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// eslint-disable-next-line
type Json = any;

async function admin(sdp: RunningSdp, method: string, path: string, body?: unknown): Promise<Json> {
  const r = await fetch(`${sdp.url}/_admin${path}`, {
    method,
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  return r.json();
}

async function account(sdp: RunningSdp, username: string) {
  const { api_key: key } = await admin(sdp, 'POST', '/accounts', { username });
  const auth = { authorization: `${username}:${key}` };
  const call = async (path: string, params: Record<string, unknown> = {}) => {
    const r = await fetch(`${sdp.url}/v1.5${path}`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify(params) });
    return { status: r.status, body: (await r.json()) as Json };
  };
  const ingest = async (source: string, ids: string[]) => {
    const lines = ids.map((id) => JSON.stringify({ interaction: { id, content: 'coffee' }, fb: { content: `coffee ${id}` } }));
    const r = await fetch(`${sdp.url}/v1.5/ingest/${source}`, { method: 'POST', headers: auth, body: lines.join('\n') });
    expect(r.status).toBe(200);
  };
  return { call, ingest };
}

/** Milliseconds each call of `run` took, made one after another while `busy()` holds (or `count` times). */
async function timed(run: () => Promise<unknown>, until: { count: number } | { busy: () => boolean }): Promise<number[]> {
  const took: number[] = [];
  while ('count' in until ? took.length < until.count : until.busy()) {
    const start = performance.now();
    await run();
    took.push(performance.now() - start);
  }
  return took;
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const stores: Array<[string, () => string]> = [
  ['memory', () => 'memory:'],
  ['SQLite', () => `sqlite:${join(dir, `advance-${Date.now()}.db`)}`],
];

describe.each(stores)('a day of the manual clock on the %s store, one tenant holding 50 http subscriptions', (_name, store) => {
  it(`does work that follows what there is to deliver, and another account's calls are served during it`, async () => {
    const sdp = await startServer(
      { ...defaultSettings(), port: 0, store: store(), clock: 'manual', clockStartMs: T0, adminToken: TOKEN, accessLog: 'off' },
      { pushOutbound: nodeOutbound({ timeoutMs: 2_000 }) },
    );
    const receiver = await startPushReceiver({ clockNow: () => sdp.clock.now() });
    try {
      const noisy = await account(sdp, 'noisy');
      const { hash } = (await noisy.call('/insight/compile', { csdl: 'fb.content contains "coffee"' })).body;
      expect((await noisy.call('/insight/start', { hash, name: 'coffee', service: 'facebook' })).status).toBe(200);
      const source = (await noisy.call('/source/create', { source_type: 'twitter_gnip', name: 'feed', resources: [{ parameters: { mapping: 'gnip_1' } }] })).body.id as string;
      expect((await noisy.call('/source/start', { id: source })).status).toBe(200);
      for (let k = 0; k < SUBSCRIPTIONS; k++) {
        const created = await noisy.call('/push/create', { name: `s${k}`, output_type: 'http', output_params: { url: receiver.url, delivery_frequency: 0 }, hash });
        expect(created.status).toBe(200);
      }
      await noisy.ingest(source, ['first', 'second']);

      const quiet = await account(sdp, 'quiet');
      const validate = async () => expect((await quiet.call('/validate', { csdl: 'fb.content contains "tea"' })).status).toBe(200);
      await timed(validate, { count: 20 });
      const atRest = await timed(validate, { count: 30 });

      const steps = vi.spyOn(PushDelivery.prototype, 'deliverDue');
      const units = vi.spyOn(sdp.engine, 'command');
      let moving = true;
      const moved = admin(sdp, 'POST', '/clock', { advance_ms: DAY }).finally(() => (moving = false));
      const duringMove = await timed(validate, { busy: () => moving });
      expect(await moved).toEqual({ now: T0 + DAY });
      const stepped = steps.mock.calls.length;
      const commands = units.mock.calls.length;
      steps.mockRestore();
      units.mockRestore();

      // Every subscription got what waited, once.
      const batches = receiver.received.filter((r) => r.headers['x-sdp-ping'] !== 'true');
      expect(batches).toHaveLength(SUBSCRIPTIONS);
      // A step to send the batch, one to find nothing after it: not one per second of the day (86,400 each).
      expect(stepped).toBeLessThanOrEqual(SUBSCRIPTIONS * 3);
      expect(commands).toBeLessThanOrEqual(SUBSCRIPTIONS * 10);
      expect(duringMove.length).toBeGreaterThan(0);
      // The slowest call during the move waited for a step or two, not for the move: a generous ratio to
      // the same calls at rest, as the machine's speed sets both.
      expect(Math.max(...duringMove)).toBeLessThan(50 * median(atRest) + 10 * Math.max(...atRest));
    } finally {
      await receiver.close();
      await sdp.close();
    }
  }, 60_000);
});
