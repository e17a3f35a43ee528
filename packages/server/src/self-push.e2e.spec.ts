import { mkdtempSync, rmSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startPushReceiver } from '../test/push-receiver.ts';
import { defaultSettings, type ServerSettings } from './settings.ts';
import { startServer, type RunningSdp } from './server.ts';

const T0 = Date.parse('2026-03-02T08:00:00Z');
const TOKEN = 'self-push-token';
const dir = mkdtempSync(join(tmpdir(), 'sdp-self-push-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
// eslint-disable-next-line
type Json = any;

const settings = (over: Partial<ServerSettings> = {}): ServerSettings => ({
  ...defaultSettings(),
  port: 0,
  store: 'memory:',
  clock: 'manual',
  clockStartMs: T0,
  adminToken: TOKEN,
  accessLog: 'off',
  ...over,
});

/** An account with a recording fed by a started managed source, as the measured attack set it up. */
async function account(sdp: RunningSdp, username: string) {
  const opened = await fetch(`${sdp.url}/_admin/accounts`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ username }),
  });
  const { api_key: key } = (await opened.json()) as Json;
  const call = async (path: string, params: Record<string, unknown> = {}) => {
    const r = await fetch(`${sdp.url}/v1.5${path}`, { method: 'POST', headers: { authorization: `${username}:${key}`, 'content-type': 'application/json' }, body: JSON.stringify(params) });
    return { status: r.status, body: (r.status === 204 ? {} : await r.json()) as Json };
  };
  const { hash } = (await call('/insight/compile', { csdl: 'fb.content contains "coffee"' })).body;
  expect((await call('/insight/start', { hash, name: 'coffee', service: 'facebook' })).status).toBe(200);
  const source = (await call('/source/create', { source_type: 'twitter_gnip', name: 'feed', resources: [{ parameters: { mapping: 'gnip_1' } }] })).body;
  expect((await call('/source/start', { id: source.id })).status).toBe(200);
  const ingest = async (count: number) => {
    const lines = Array.from({ length: count }, (_, i) => JSON.stringify({ interaction: { id: `${username}-${i}`, content: 'coffee' }, fb: { content: `coffee ${i}` } }));
    const r = await fetch(`${sdp.url}/v1.5/ingest/${source.id}`, { method: 'POST', headers: { authorization: `${username}:${key}` }, body: lines.join('\n') });
    expect(r.status).toBe(200);
  };
  return { call, ingest, hash, key: key as string, sourceId: source.id as string };
}

/** The server's own ingestion of the account's source, in every spelling of "this machine" at its port. */
const selfUrls = (port: number, sourceId: string): string[] =>
  [
    `127.0.0.1:${port}`,
    `localhost:${port}`,
    `LOCALHOST.:${port}`,
    `feed.localhost:${port}`,
    `127.1:${port}`,
    `2130706433:${port}`,
    `0x7f.1:${port}`,
    `0177.0.0.01:${port}`,
    `127.5.6.7:${port}`,
    `[::1]:${port}`,
    `[0:0:0:0:0:0:0:1]:${port}`,
    `[::ffff:127.0.0.1]:${port}`,
    `0.0.0.0:${port}`,
    `[::]:${port}`,
  ].map((authority) => `http://${authority}/v1.5/ingest/${sourceId}`);

describe('push never delivers into the server itself', () => {
  it('refuses its own address and port however spelt at validate, create and update with 400; another loopback port is allowed', async () => {
    const sdp = await startServer(settings());
    const rx = await startPushReceiver();
    try {
      const a = await account(sdp, 'selfie');
      for (const url of selfUrls(sdp.port, a.sourceId)) {
        const validated = await a.call('/push/validate', { output_type: 'http', output_params: { url } });
        expect([url, validated.status, validated.body.error]).toEqual([url, 400, expect.stringMatching(/^output_params\.url: this server does not deliver to itself/)]);
        const created = await a.call('/push/create', { name: 'loop', output_type: 'http', output_params: { url }, hash: a.hash });
        expect([url, created.status, created.body.error]).toEqual([url, 400, expect.stringMatching(/does not deliver to itself/)]);
      }
      expect(rx.received).toHaveLength(0);

      // Another port on loopback is another program: allowed, pinged, and the update to it as well.
      const created = await a.call('/push/create', { name: 'elsewhere', output_type: 'http', output_params: { url: rx.url, format: 'json_array' }, hash: a.hash });
      expect(created.status).toBe(200);
      expect(rx.received).toHaveLength(1);
      for (const url of selfUrls(sdp.port, a.sourceId)) {
        const updated = await a.call('/push/update', { id: created.body.id, output_params: { url } });
        expect([url, updated.status, updated.body.error]).toEqual([url, 400, expect.stringMatching(/does not deliver to itself/)]);
      }
      expect((await a.call('/push/update', { id: created.body.id, output_params: { url: `${rx.url}?again` } })).status).toBe(200);
      expect((await a.call('/push/get', { id: created.body.id })).body.output_params.url).toBe(`${rx.url}?again`);
    } finally {
      await rx.close();
      await sdp.close();
    }
  });

  it('a subscription whose destination became the server (restarted on that port) fails its delivery, logged, and sends nothing', async () => {
    const store = `sqlite:${join(dir, 'became-self.db')}`;
    const rx = await startPushReceiver();
    const first = await startServer(settings({ store }));
    let id: string;
    let key: string;
    let sourceId: string;
    try {
      const a = await account(first, 'later');
      key = a.key;
      sourceId = a.sourceId;
      const created = await a.call('/push/create', { name: 'to a port', output_type: 'http', output_params: { url: `${rx.url}`, format: 'json_array', delivery_frequency: 1 }, hash: a.hash });
      expect(created.status).toBe(200);
      id = created.body.id;
    } finally {
      await first.close();
      await rx.close();
    }

    // The server now listens where the receiver did.
    const sdp = await startServer(settings({ store, port: rx.port, clockStartMs: T0 + 60_000 }));
    const deliveries: string[] = [];
    sdp.http.server.on('request', (req: IncomingMessage) => {
      if (req.headers['x-sdp-delivery-id'] !== undefined) deliveries.push(req.url!);
    });
    try {
      const call = async (path: string, params: Record<string, unknown>) =>
        (await (await fetch(`${sdp.url}/v1.5${path}`, { method: 'POST', headers: { authorization: `later:${key}`, 'content-type': 'application/json' }, body: JSON.stringify(params) })).json()) as Json;
      const lines = ['a', 'b', 'c'].map((i) => JSON.stringify({ interaction: { id: i, content: 'coffee' }, fb: { content: 'coffee' } }));
      expect((await fetch(`${sdp.url}/v1.5/ingest/${sourceId}`, { method: 'POST', headers: { authorization: `later:${key}` }, body: lines.join('\n') })).status).toBe(200);
      for (let i = 0; i < 3; i++) {
        await fetch(`${sdp.url}/_admin/clock`, { method: 'POST', headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' }, body: JSON.stringify({ advance_ms: 30_000 }) });
      }
      const log = (await call('/push/log', { id })).log_entries as Json[];
      expect(log.some((e) => !e.success && /this server does not deliver to itself \(127\.0\.0\.1 port \d+ is where it listens\)/.test(e.message))).toBe(true);
      expect(log.some((e) => e.success && /delivered/i.test(e.message))).toBe(false);
      expect(deliveries).toEqual([]);
    } finally {
      await sdp.close();
    }
  });
});
