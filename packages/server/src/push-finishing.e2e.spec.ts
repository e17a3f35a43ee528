/**
 * A stopped http subscription delivers what it held up to its end before it is finished (issue 24), on
 * the durable stores too: over a real socket on SQLite and PostgreSQL (push-delivery.e2e.spec.ts holds
 * it on memory, with a failing receiver as well).
 */
import { describe, expect, it } from 'vitest';
import { everyStore } from '../test/every-store.ts';
import { nodeOutbound } from '@sdp/http';
import { startPushReceiver } from '../test/push-receiver.ts';
import { defaultSettings } from './settings.ts';
import { startServer } from './server.ts';

const TOKEN = 'push-finishing-token';
// eslint-disable-next-line
type Json = any;

// Memory: push-delivery.e2e.spec.ts.
const stores = everyStore('push-finishing').filter(([name]) => name !== 'memory');

describe.each(stores)('a stopped http subscription on the %s store', (_name, store) => {
  it.skipIf(!store)('delivers the batch due after the finishing minute, then is finished, nothing lost', async () => {
    const sdp = await startServer(
      { ...defaultSettings(), port: 0, store: store!, clock: 'manual', clockStartMs: Date.parse('2026-03-02T08:00:00Z'), adminToken: TOKEN, accessLog: 'off' },
      { pushOutbound: nodeOutbound({ timeoutMs: 500 }) },
    );
    const rx = await startPushReceiver({ clockNow: () => sdp.clock.now() });
    try {
      const admin = async (method: string, path: string, body?: unknown): Promise<Json> =>
        (await fetch(`${sdp.url}/_admin${path}`, { method, headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' }, ...(body ? { body: JSON.stringify(body) } : {}) })).json();
      const { api_key: key } = await admin('POST', '/accounts', { username: 'pusher' });
      const call = async (path: string, params: Record<string, unknown> = {}): Promise<Json> =>
        (await fetch(`${sdp.url}/v1.5${path}`, { method: 'POST', headers: { authorization: `pusher:${key}`, 'content-type': 'application/json' }, body: JSON.stringify(params) })).json();
      const { hash } = await call('/insight/compile', { csdl: 'fb.content contains "coffee"' });
      await call('/insight/start', { hash, name: 'coffee', service: 'facebook' });
      const source = await call('/source/create', { source_type: 'twitter_gnip', name: 'feed', resources: [{ parameters: { mapping: 'gnip_1' } }] });
      await call('/source/start', { id: source.id });
      let n = 0;
      const ingest = async (count: number) => {
        const lines = Array.from({ length: count }, () => JSON.stringify({ interaction: { id: `i${n}` }, fb: { content: `coffee ${n++}` } }));
        const r = await fetch(`${sdp.url}/v1.5/ingest/${source.id}`, { method: 'POST', headers: { authorization: `pusher:${key}` }, body: lines.join('\n') });
        expect(r.status).toBe(200);
      };
      const sub = await call('/push/create', { name: 'slow', output_type: 'http', hash, output_params: { url: rx.url, format: 'json_array', delivery_frequency: 120 } });
      await ingest(3);
      await admin('POST', '/clock', { advance_ms: 1_000 });
      await ingest(4);
      expect((await call('/push/stop', { id: sub.id })).status).toBe('finishing');
      await admin('POST', '/clock', { advance_ms: 70_000 });
      expect((await call('/push/get', { id: sub.id })).status).toBe('finishing');
      await admin('POST', '/clock', { advance_ms: 61_000 });
      const delivered = rx.received.filter((r) => r.headers['x-sdp-ping'] === undefined).flatMap((r) => (JSON.parse(r.body) as Json[]).map((i) => i.interaction.id));
      expect(delivered).toEqual(['i0', 'i1', 'i2', 'i3', 'i4', 'i5', 'i6']);
      expect(await call('/push/get', { id: sub.id, include_finished: 1 })).toMatchObject({ status: 'finished', lost_data: false, interaction_count: 7 });
    } finally {
      await rx.close();
      await sdp.close();
    }
  }, 60_000);
});
