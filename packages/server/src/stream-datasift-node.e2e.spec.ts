/**
 * The original's Node client, datasift-node 1.5.0 as published and unchanged, against a real server: its
 * duplex stream (GET / with actions in a chunked request body) pointed here with `ds.host` and `ds.port`
 * (docs/clients.md#stream-clients).
 */
import { createRequire } from 'node:module';
import { afterEach, describe, expect, it } from 'vitest';
import { account, admin, start, stopAll, T0 } from '../test/stream-kit.ts';

// eslint-disable-next-line
type Json = any;
const DataSift = createRequire(import.meta.url)('datasift-node') as new (username: string, key: string, urlBase: string, https: boolean) => Json;
afterEach(stopAll);

async function until<T>(what: string, test: () => T | undefined | Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + 5000;
  for (;;) {
    const found = await test();
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`waited for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('datasift-node 1.5.0, unchanged', () => {
  it('connects, subscribes to a compiled hash, receives what a managed source ingests, gets a tick, unsubscribes and stops; the allowance falls by 5', async () => {
    const sdp = await start();
    const ada = await account(sdp, 'ada');
    const hash = await ada.compile('fb.content contains "coffee"');
    const before = await ada.remaining();

    const ds = new DataSift('ada', ada.key, sdp.url.slice('http://'.length), false);
    ds.host = '127.0.0.1';
    ds.port = sdp.port;
    const seen: { event: string; value: Json }[] = [];
    for (const event of ['connect', 'success', 'warning', 'error', 'interaction', 'tick', 'delete', 'disconnect']) ds.on(event, (value: Json) => seen.push({ event, value }));
    const of = (event: string) => seen.filter((s) => s.event === event).map((s) => s.value);
    try {
      ds.connect();
      await until('connect', () => (of('connect').length > 0 ? true : undefined));
      ds.subscribe(hash);
      expect(await until('the subscription', () => of('success')[0])).toBe(`Successfully subscribed to hash ${hash}`);
      expect(await ada.remaining()).toBe(before - 5);

      // One at a time: this client reads only the first message of each piece the socket hands it.
      await ada.ingest(['coffee one']);
      await until('the first interaction', () => of('interaction')[0]);
      await ada.ingest(['tea']);
      await ada.ingest(['coffee two']);
      await until('the second interaction', () => of('interaction')[1]);
      expect(of('interaction').map((m) => [m.hash, m.data.fb.content])).toEqual([[hash, 'coffee one'], [hash, 'coffee two']]);

      await admin(sdp, 'POST', '/clock', { advance_ms: 30_000 });
      const tick = await until('a tick', () => of('tick')[0]);
      expect(tick).toEqual({ tick: Math.floor((T0 + 30_000) / 1000), status: 'connected', message: 'Waiting for data' });

      ds.unsubscribe(hash);
      await until('the unsubscription', async () => ((await admin(sdp, 'GET', '/streams')).connections[0]?.hashes.length === 0 ? true : undefined));
      expect((await admin(sdp, 'GET', '/streams')).connections).toEqual([expect.objectContaining({ username: 'ada', transport: 'http-duplex', hashes: [] })]);
      await ada.ingest(['coffee three']);
      await new Promise((r) => setTimeout(r, 300));
      expect(of('interaction')).toHaveLength(2);
      expect(of('error')).toEqual([]);

      // disconnect() sends stop; the server's failure answer is what the client turns into its success.
      ds.disconnect();
      await until('the stop answer', () => of('success').find((m: string) => /stop message/.test(m)));
      await until('the connection gone', async () => ((await admin(sdp, 'GET', '/streams')).connections.length === 0 ? true : undefined));
      expect(await ada.remaining()).toBe(before - 5);
    } finally {
      clearTimeout(ds.dataTimeout);
      ds.autoreconnect = false;
      ds.disconnect(true);
    }
  });
});
