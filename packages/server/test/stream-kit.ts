/**
 * What the stream's end-to-end tests share: a server on the manual clock, an account with a running
 * managed source, a WebSocket client that keeps what it receives, a raw socket that keeps every byte.
 */
import { connect } from 'node:net';
import { expect } from 'vitest';
import WebSocket from 'ws';
import { defaultSettings, type ServerSettings } from '../src/settings.ts';
import { startServer, type RunningSdp } from '../src/server.ts';

export const T0 = Date.parse('2026-03-02T08:00:00Z');
export const TOKEN = 'stream-token';
// eslint-disable-next-line
export type Json = any;

export const settings = (over: Partial<ServerSettings> = {}): ServerSettings => ({ ...defaultSettings(), port: 0, store: 'memory:', clock: 'manual', clockStartMs: T0, adminToken: TOKEN, accessLog: 'off', ...over });

const running: RunningSdp[] = [];
export const stopAll = async (): Promise<void> => {
  await Promise.all(running.splice(0).map((s) => s.close()));
};

export async function start(over: Partial<ServerSettings> = {}): Promise<RunningSdp> {
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

/** Opens the account (or, given its key, uses one another server opened) with a running managed source. */
export async function account(sdp: RunningSdp, username: string, pkg?: Record<string, unknown>, existingKey?: string) {
  const key: string = existingKey ?? (await admin(sdp, 'POST', '/accounts', { username, ...(pkg ? { package: pkg } : {}) })).api_key;
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
    expect(r.status, await r.text()).toBe(200);
  };
  const compile = async (csdl: string): Promise<string> => (await call('/compile', { csdl })).body.hash;
  return { call, remaining, ingest, compile, username, key };
}

/** A WebSocket client that keeps every message it receives, and waits for those it expects. */
export class WsClient {
  readonly messages: Json[] = [];
  /** The headers of the handshake's 101. */
  upgradeHeaders: Record<string, string | string[] | undefined> = {};
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
    ws.once('upgrade', (res) => (client.upgradeHeaders = res.headers));
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

export const wsUrl = (sdp: RunningSdp, path: string) => sdp.url.replace(/^http/, 'ws') + path;
export const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A raw socket that keeps every byte the server sends. */
export async function rawSocket(sdp: RunningSdp, request: string) {
  const socket = connect(sdp.port, '127.0.0.1');
  let bytes = '';
  let closed = false;
  socket.setEncoding('latin1');
  socket.on('data', (d: string) => (bytes += d));
  socket.on('close', () => (closed = true));
  socket.on('error', () => undefined);
  await new Promise<void>((r) => socket.once('connect', () => r()));
  socket.write(request);
  const until = async (test: (bytes: string) => boolean): Promise<string> => {
    const deadline = Date.now() + 5000;
    while (!test(bytes)) {
      if (Date.now() > deadline) throw new Error(`waited; have ${JSON.stringify(bytes)}`);
      await pause(20);
    }
    return bytes;
  };
  return { socket, until, get bytes() { return bytes; }, get closed() { return closed; } };
}

export const chunk = (json: unknown) => {
  const data = JSON.stringify(json) + '\n';
  return `${Buffer.byteLength(data).toString(16)}\r\n${data}\r\n`;
};

