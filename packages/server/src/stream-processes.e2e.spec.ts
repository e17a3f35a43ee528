/**
 * Two servers on one store (as two processes of `--workers`, or two hosts on one PostgreSQL database):
 * a subscriber connected to one receives what the other ingested, through the log and the store's commit
 * notices (each server has its own store handle, so the other's commits reach it as another process').
 */
import { describe, expect, it } from 'vitest';
import { everyStore } from '../test/every-store.ts';
import { account, admin, pause, settings, stopAll, WsClient, wsUrl, type Json } from '../test/stream-kit.ts';
import { startServer } from './server.ts';

const shared = everyStore('stream-processes').filter(([name]) => name !== 'memory');

describe.each(shared)('the stream across two servers on the %s store', (_name, store) => {
  it.skipIf(store === undefined)('a subscriber on one receives, within a second, what the other ingested, once and in order', async () => {
    // Not sole writers: each reads the other's writes (as --workers and PostgreSQL servers do).
    const first = await startServer({ ...settings({ store: store!, workers: 2 }) });
    const second = await startServer({ ...settings({ store: store!, workers: 2 }) }, { setup: false });
    try {
      const onFirst = await account(first, 'ada');
      const hash = await onFirst.compile('fb.content contains "coffee"');
      const client = await WsClient.open(wsUrl(first, `/multi?username=ada&api_key=${onFirst.key}`));
      client.send({ action: 'subscribe', hash });
      await client.until((m: Json) => m.status === 'success');

      const onSecond = await account(second, 'ada', undefined, onFirst.key);
      await onSecond.ingest(['coffee one', 'tea', 'coffee two']);
      // From the moment the other server answered the ingestion (its write committed).
      const t = performance.now();
      const got = await client.until((m: Json) => m.data !== undefined, 2);
      const ms = performance.now() - t;
      expect(got.map((m: Json) => m.data.fb.content)).toEqual(['coffee one', 'coffee two']);
      expect(ms).toBeLessThan(1000);
      client.ws.close();
      // The subscriber's server recorded what it delivered at the disconnect: the other reports it.
      await pause(300);
      await admin(second, 'POST', '/clock', { advance_ms: 60_000 });
      expect((await onSecond.call('/usage', { period: 'current' })).body.streams[hash].licenses).toEqual({ interaction: 2, twitter_gnip: 2 });
    } finally {
      await second.close();
      await first.close();
      await stopAll();
    }
  }, 30_000);
});

describe('connections left open', () => {
  it('a sole server ends, at start, the connections a stopped run left open: their subscriptions match nothing more and free their places', async () => {
    const store = shared.find(([name]) => name === 'SQLite')![1]!.replace(/\.db$/, '-left-open.db');
    // Its own close, after its store was closed under it, fails quietly.
    const first = await startServer(settings({ store }), { onError: () => undefined });
    const ada = await account(first, 'ada', { stream_connections: 1 });
    const hash = await ada.compile('fb.content contains "coffee"');
    const client = await WsClient.open(wsUrl(first, `/multi?username=ada&api_key=${ada.key}`));
    client.send({ action: 'subscribe', hash });
    await client.until((m: Json) => m.status === 'success');
    // As after a crash: the store is left with the connection open.
    const open = await first.engine.store.readTypes(['StreamConnected', 'StreamDisconnected']);
    expect(open.map((e) => e.type)).toEqual(['StreamConnected']);
    client.ws.terminate();
    await first.store.close().catch(() => undefined);
    const again = await startServer(settings({ store }), { setup: false });
    try {
      const events = await again.engine.store.readTypes(['StreamConnected', 'StreamDisconnected']);
      expect(events.map((e) => [e.type, (e.data as { reason?: string }).reason])).toEqual([['StreamConnected', undefined], ['StreamDisconnected', 'server restarted']]);
      const second = await WsClient.open(wsUrl(again, `/multi?username=ada&api_key=${ada.key}`));
      second.ws.close();
    } finally {
      await again.close();
      await first.close().catch(() => undefined);
    }
  }, 30_000);
});
