/**
 * The stream product over real sockets (issue 25): a plain `ws` client, a raw socket reading the HTTP
 * stream's chunks, and the refusals. What is streamed comes in through a managed source's ingestion.
 */
import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { defaultSettings, type ServerSettings } from './settings.ts';
import { startServer, type RunningSdp } from './server.ts';

const T0 = Date.parse('2026-03-02T08:00:00Z');
const TOKEN = 'stream-token';
// eslint-disable-next-line
type Json = any;

const settings = (over: Partial<ServerSettings> = {}): ServerSettings => ({ ...defaultSettings(), port: 0, store: 'memory:', clock: 'manual', clockStartMs: T0, adminToken: TOKEN, accessLog: 'off', ...over });

const running: RunningSdp[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((s) => s.close()));
});

async function start(over: Partial<ServerSettings> = {}): Promise<RunningSdp> {
  const sdp = await startServer(settings(over), { onError: (e) => console.error(e) });
  running.push(sdp);
  return sdp;
}

export const admin = async (sdp: RunningSdp, method: string, path: string, body?: unknown): Promise<Json> => {
  const r = await fetch(`${sdp.url}/_admin${path}`, {
    method,
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  return r.status === 204 ? undefined : r.json();
};

export async function account(sdp: RunningSdp, username: string, pkg?: Record<string, unknown>) {
  const { api_key: key } = await admin(sdp, 'POST', '/accounts', { username, ...(pkg ? { package: pkg } : {}) });
  const call = async (path: string, params: Record<string, unknown> = {}): Promise<{ status: number; body: Json }> => {
    const r = await fetch(`${sdp.url}/v1.5${path}`, { method: 'POST', headers: { authorization: `${username}:${key}`, 'content-type': 'application/json' }, body: JSON.stringify(params) });
    const text = await r.text();
    return { status: r.status, body: text ? JSON.parse(text) : undefined };
  };
  const remaining = async (): Promise<number> => (await admin(sdp, 'GET', `/accounts/${username}`)).allowances.general.remaining;
  const source = (await call('/source/create', { source_type: 'twitter_gnip', name: 'feed', resources: [{ parameters: { mapping: 'gnip_1' } }] })).body;
  expect((await call('/source/start', { id: source.id })).status).toBe(200);
  const ingest = async (contents: string[]): Promise<void> => {
    const lines = contents.map((c, i) => JSON.stringify({ interaction: { id: `${c}-${i}`, content: c, type: 'twitter_gnip' }, fb: { content: c } }));
    const r = await fetch(`${sdp.url}/v1.5/ingest/${source.id}`, { method: 'POST', headers: { authorization: `${username}:${key}` }, body: lines.join('\n') });
    expect(r.status).toBe(200);
  };
  const compile = async (csdl: string): Promise<string> => (await call('/compile', { csdl })).body.hash;
  return { call, remaining, ingest, compile, username, key };
}

/** A WebSocket client that keeps every message it receives, and waits for those it expects. */
export class WsClient {
  readonly messages: Json[] = [];
  private waiters: (() => void)[] = [];
  constructor(readonly ws: WebSocket) {
    ws.on('message', (data) => {
      this.messages.push(JSON.parse(String(data)));
      for (const w of this.waiters.splice(0)) w();
    });
    ws.on('close', () => {
      for (const w of this.waiters.splice(0)) w();
    });
  }

  static async open(url: string, headers: Record<string, string> = {}): Promise<WsClient> {
    const ws = new WebSocket(url, { headers });
    const client = new WsClient(ws);
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    return client;
  }

  send(action: Record<string, unknown>): void {
    this.ws.send(JSON.stringify(action));
  }

  /** Waits until `count` messages satisfy `test` (5 s at most). */
  async until(test: (m: Json) => boolean, count = 1): Promise<Json[]> {
    const deadline = Date.now() + 5000;
    for (;;) {
      const found = this.messages.filter(test);
      if (found.length >= count) return found;
      if (Date.now() > deadline || this.ws.readyState === WebSocket.CLOSED) throw new Error(`waited for ${count} messages; have ${JSON.stringify(this.messages)}`);
      await new Promise<void>((r) => {
        this.waiters.push(r);
        setTimeout(r, 100);
      });
    }
  }
}

const wsUrl = (sdp: RunningSdp, path: string) => sdp.url.replace(/^http/, 'ws') + path;
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('the stream over WebSocket', () => {
  it('subscribes to a compiled hash, receives what ingestion then adds, ticks as the clock moves, unsubscribes; the allowance falls by 5', async () => {
    const sdp = await start();
    const ada = await account(sdp, 'ada');
    const hash = await ada.compile('fb.content contains "coffee"');
    await ada.ingest(['coffee before']);
    const before = await ada.remaining();
    const client = await WsClient.open(wsUrl(sdp, `/multi?username=ada&api_key=${ada.key}`));
    client.send({ action: 'subscribe', hash });
    await client.until((m) => m.status === 'success');
    expect(client.messages[0]).toEqual({ status: 'success', message: `Successfully subscribed to hash ${hash}`, hash });
    expect(await ada.remaining()).toBe(before - 5);
    // A repeated subscribe is acknowledged and charges nothing.
    client.send({ action: 'subscribe', hash });
    await client.until((m) => m.status === 'success', 2);
    expect(await ada.remaining()).toBe(before - 5);

    await ada.ingest(['coffee one', 'tea', 'coffee two']);
    const got = await client.until((m) => m.data !== undefined, 2);
    expect(got.map((m) => [m.hash, m.data.fb.content])).toEqual([[hash, 'coffee one'], [hash, 'coffee two']]);
    expect(client.messages.some((m) => m.data?.fb.content === 'coffee before')).toBe(false);

    await admin(sdp, 'POST', '/clock', { advance_ms: 30_000 });
    const [tick] = await client.until((m) => m.tick !== undefined);
    expect(tick).toEqual({ tick: Math.floor((T0 + 30_000) / 1000), status: 'connected', message: 'Waiting for data' });

    const listed = (await admin(sdp, 'GET', '/streams')).connections;
    expect(listed).toEqual([expect.objectContaining({ username: 'ada', transport: 'websocket', hashes: [hash], delivered: 2 })]);

    client.send({ action: 'unsubscribe', hash });
    await pause(200);
    await ada.ingest(['coffee three']);
    await pause(300);
    expect(client.messages.filter((m) => m.data).length).toBe(2);
    client.ws.close();
    await pause(200);
    expect((await admin(sdp, 'GET', '/streams')).connections).toEqual([]);
    const usage = (await ada.call('/usage', { period: 'current' })).body;
    expect(usage.streams[hash]).toEqual({ seconds: 30, licenses: { interaction: 2, twitter_gnip: 2 } });
  });
});
