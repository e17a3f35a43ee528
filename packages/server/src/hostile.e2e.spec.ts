import { request } from 'node:http';
import { describe, expect, it } from 'vitest';
import { everyStore } from '../test/every-store.ts';
import { defaultSettings } from './settings.ts';
import { startServer, type RunningSdp } from './server.ts';

const TOKEN = 'operator-token-for-tests';
const stores = everyStore('hostile');

/** Node's client, which sends headers as given: repeated ones, raw bytes. */
function send(sdp: RunningSdp, method: string, path: string, headers: Record<string, string | string[]>, body?: string): Promise<{ status: number; headers: Record<string, unknown>; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(`${sdp.url}${path}`, { method, headers: { ...headers, ...(body ? { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) } : {}) } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe.each(stores)('hostile requests over a real socket on the %s store', (_name, store) => {
  it.skipIf(!store)('refuse with 4xx, charge only the invalid parameters (step 7) and change nothing else', async () => {
    const sdp = await startServer({ ...defaultSettings(), port: 0, store: store!, clock: 'manual', clockStartMs: Date.parse('2026-03-02T08:05:37Z'), adminToken: TOKEN, accessLog: 'off' });
    try {
      const admin = { authorization: `Bearer ${TOKEN}` };
      const opened = await send(sdp, 'POST', '/_admin/accounts', admin, JSON.stringify({ username: 'mallory' }));
      const key = JSON.parse(opened.text).api_key as string;
      const auth = { authorization: `mallory:${key}` };
      const head = await sdp.store.head();

      const refusals: Array<[string, string, Record<string, string | string[]>, string | undefined, number]> = [
        ['GET', '/v1.5/historics/get?id=constructor', auth, undefined, 400],
        ['GET', '/v1.5/push/get?id=toString', auth, undefined, 400],
        ['POST', '/v1.5/historics/delete', auth, JSON.stringify({ id: 'constructor' }), 400],
        ['GET', '/v1.5/source/log?id=__proto__', auth, undefined, 400],
        ['PUT', '/v1.5/account/identity/constructor', auth, JSON.stringify({ label: 'x' }), 400],
        ['PUT', `/v1.5/account/identity/${'a'.repeat(32)}/token/__proto__`, auth, JSON.stringify({ token: 'x' }), 400],
        ['GET', '/v1.5/balance', { authorization: `Basic ${Buffer.from(`a\u0000b:${key}`).toString('base64')}` }, undefined, 401],
        ['GET', '/v1.5/balance', { authorization: `Basic ${Buffer.from(`${'m'.repeat(300)}:${key}`).toString('base64')}` }, undefined, 401],
        ['GET', '/v1.5/balance', { authorization: [`mallory:${key}`, 'other:some-key-123'] }, undefined, 400],
        ['HEAD', '/v1.5/balance', auth, undefined, 405],
        ['GET', '/v1.05/balance', auth, undefined, 404],
        ['GET', '/v01.5/balance', auth, undefined, 404],
        ['GET', '/_admin/accounts/a%00b', admin, undefined, 404],
        ['POST', '/_admin/accounts', admin, JSON.stringify({ username: 'a\u0000b' }), 400],
        ['POST', '/v1.5/push/create', auth, JSON.stringify({ name: 'n', output_type: 'http', hash: 'a'.repeat(32), output_params: '{"a":'.repeat(1200) + '1' + '}'.repeat(1200) }), 400],
      ];
      for (const [method, path, headers, body, status] of refusals) {
        const r = await send(sdp, method, path, headers, body);
        expect(r.status, `${method} ${path}: ${r.text}`).toBe(status);
        if (method !== 'HEAD') expect(typeof JSON.parse(r.text).error).toBe('string');
      }
      // Prototype names and JSON too deep are invalid parameters, refused at step 7 and charged (docs/contract.md#judgement-order); credentials, versions, methods and operator paths are refused before it. Only charges are written.
      const written = await sdp.store.readAll(head);
      expect(written.map((e) => e.type)).toEqual(Array(7).fill('CreditsCharged'));
      expect((await send(sdp, 'GET', '/v1.5/push/get?order_dir=DESC&order_by=CREATED_AT', auth)).status).toBe(200);
    } finally {
      await sdp.close();
    }
  }, 30_000);
});
