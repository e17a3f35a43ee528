/**
 * An identity's key is shown the allowance that binds it (issue 24): with `total_allowance` 20, calls of
 * cost 5 made with the identity's key read 20 as the limit and count down to 0 before the 429, over a real
 * socket on every store.
 */
import { describe, expect, it } from 'vitest';
import { everyStore } from '../test/every-store.ts';
import { defaultSettings } from './settings.ts';
import { startServer } from './server.ts';

const TOKEN = 'identity-headers-token';
const stores = everyStore('identity-headers');

describe.each(stores)('the figures an identity reads, over a real socket on the %s store', (_name, store) => {
  it.skipIf(!store)('count down its own total_allowance, not the account\'s, and reach 0 before the 429', async () => {
    const sdp = await startServer({ ...defaultSettings(), port: 0, store: store!, clock: 'manual', clockStartMs: Date.parse('2026-03-02T08:05:37Z'), adminToken: TOKEN, accessLog: 'off' });
    try {
      const opened = await fetch(`${sdp.url}/_admin/accounts`, { method: 'POST', headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' }, body: JSON.stringify({ username: 'owner' }) });
      const { api_key } = (await opened.json()) as { api_key: string };
      const call = (key: string, path: string, body?: unknown) =>
        fetch(`${sdp.url}/v1.5${path}`, { method: body ? 'POST' : 'GET', headers: { authorization: `owner:${key}`, 'content-type': 'application/json' }, ...(body ? { body: JSON.stringify(body) } : {}) });
      const identity = (await (await call(api_key, '/account/identity', { label: 'team' })).json()) as { id: string; api_key: string };
      expect((await call(api_key, `/account/identity/${identity.id}/limit`, { service: 'facebook', total_allowance: 20 })).status).toBe(201);
      const seen: Array<[number, string | null, string | null]> = [];
      for (let i = 0; i < 5; i++) {
        const r = await call(identity.api_key, '/validate', { csdl: 'fb.content contains "tea"' });
        seen.push([r.status, r.headers.get('x-ratelimit-limit'), r.headers.get('x-ratelimit-remaining')]);
      }
      expect(seen).toEqual([
        [200, '20', '15'],
        [200, '20', '10'],
        [200, '20', '5'],
        [200, '20', '0'],
        [429, '20', '0'],
      ]);
      // The account's own key still reads the account's figures.
      const own = await call(api_key, '/validate', { csdl: 'fb.content contains "tea"' });
      expect(own.headers.get('x-ratelimit-limit')).toBe('10000');
    } finally {
      await sdp.close();
    }
  });
});
