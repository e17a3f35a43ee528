/**
 * Licences are what a subscription was delivered, and the log does not keep what was matched: over the
 * fetch-style stream (whose body hands a message over exactly when the reader reads it) and the engine
 * the server uses.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { accountDecider, accountStream } from '@sdp/core/deciders';
import { MATCHED_TYPE, recordInteractions } from '@sdp/core/internal';
import { createEngine, type Engine } from '@sdp/core';
import { MemoryEventStore, seededIds } from '@sdp/core/kernel';
import { StreamHost, type StreamHostOptions } from './stream-host.ts';

const T0 = Date.parse('2026-03-01T12:00:00Z');
const KEY = 'alice-key-01';
const hosts: StreamHost[] = [];
afterEach(async () => {
  for (const h of hosts.splice(0)) await h.close();
});

async function platform(options: Partial<StreamHostOptions> = {}) {
  const time = { now: T0 };
  const store = new MemoryEventStore();
  const engine = createEngine({ store, clock: { now: () => time.now }, ids: seededIds(7) });
  await engine.openAccount({ username: 'alice', api_key: KEY, package: {} });
  const host = new StreamHost({ engine, onError: (e) => { throw e; }, ...options });
  hosts.push(host);
  const compile = async (csdl: string): Promise<string> =>
    ((await engine.call({ version: '1.5', endpoint: 'core.compile', credentials: { username: 'alice', apiKey: KEY }, params: { csdl } })).body as { hash: string }).hash;
  const ingest = (contents: string[]) =>
    engine.command(async (uow) =>
      recordInteractions(
        { uow, account: await uow.load(accountDecider, accountStream('alice')), settings: engine.settings, now: uow.now },
        contents.map((c, i) => ({ interaction: { id: `${c}-${i}`, content: c, type: 'twitter_gnip' }, fb: { content: c } })),
      ),
    );
  const open = async (path: string) => {
    const response = (await host.handleFetch(new Request(`http://sdp.test${path}`, { headers: { authorization: `alice:${KEY}` } })))!;
    expect(response.status).toBe(200);
    const reader = response.body!.getReader();
    return { next: async () => JSON.parse(new TextDecoder().decode((await reader.read()).value)), cancel: () => reader.cancel() };
  };
  return { engine, store, host, time, compile, ingest, open };
}

async function licences(engine: Engine, hash: string): Promise<Record<string, number> | undefined> {
  const usage = await engine.call({ version: '1.5', endpoint: 'core.usage', credentials: { username: 'alice', apiKey: KEY }, params: { period: 'current' } });
  return (usage.body as { streams?: Record<string, { licenses: Record<string, number> }> }).streams?.[hash]?.licenses;
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 20));

describe('licences are counted as delivered', () => {
  it('a consumer cut for slowness is charged for what it read, not for what was matched for it; one that reads is charged for all', async () => {
    const { engine, host, time, compile, ingest, open } = await platform({ bufferBytes: 8192 });
    const hash = await compile('fb.content contains "coffee"');
    const slow = await open(`/multi?hashes=${hash}`);
    const fast = await open(`/multi?hashes=${hash}`);
    expect((await slow.next()).status).toBe('success');
    expect((await fast.next()).status).toBe('success');
    // The slow one reads two interactions and stops; 0.7 KiB messages keep coming until it is cut.
    const big = 'coffee ' + 'x'.repeat(300);
    let matched = 0;
    let read = 0;
    const fastRead = async () => {
      for (; read < matched; read++) expect((await fast.next()).data.fb.content).toBe(big);
    };
    for (let round = 0; round < 2; round++) {
      await ingest([big]);
      matched++;
      await host.caughtUp();
      expect((await slow.next()).data.fb.content).toBe(big);
      await fastRead();
    }
    for (let round = 0; round < 40 && host.connections().length === 2; round++) {
      await ingest([big, big]);
      matched += 2;
      await host.caughtUp();
      await fastRead();
    }
    expect(host.connections()).toHaveLength(1);
    await fast.cancel();
    await settle();
    time.now += 1000;
    // Old licences: every match for every live subscription. Now: the fast one's, and the two the slow one read.
    expect(matched).toBeGreaterThan(4);
    expect(await licences(engine, hash)).toEqual({ interaction: matched + 2, twitter_gnip: matched + 2 });
  });

  it('counts are recorded when a clock minute ends, with the connection still open', async () => {
    const { engine, host, time, compile, ingest, open } = await platform();
    const hash = await compile('fb.content contains "coffee"');
    const reader = await open(`/multi?hashes=${hash}`);
    await reader.next();
    await ingest(['coffee one', 'tea', 'coffee two']);
    await host.caughtUp();
    await reader.next();
    await reader.next();
    expect(await licences(engine, hash)).toBeUndefined();
    time.now += 60_000;
    // The host looks every quarter second for counts owed a write.
    const deadline = Date.now() + 2000;
    while ((await licences(engine, hash))?.interaction !== 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(await licences(engine, hash)).toEqual({ interaction: 2, twitter_gnip: 2 });
    expect(host.connections()).toHaveLength(1);
    await reader.cancel();
  });

  it('drops matched interactions from the log once they are older than they are kept, keeping the relay stream\'s last', async () => {
    let real = 1_000_000;
    const { store, host, compile, ingest, open } = await platform({ matchesKeptMs: 60_000, realNow: () => real });
    const hash = await compile('fb.content contains "coffee"');
    const reader = await open(`/multi?hashes=${hash}`);
    await reader.next();
    for (let k = 0; k < 3; k++) {
      await ingest([`coffee ${k}`]);
      await host.caughtUp();
      expect((await reader.next()).data.fb.content).toBe(`coffee ${k}`);
    }
    expect(await store.readTypes([MATCHED_TYPE])).toHaveLength(3);
    const tick = async (ms: number) => {
      real += ms;
      await new Promise((r) => setTimeout(r, 300));
    };
    // The head is noted now; a minute later everything up to it goes, bar the stream's last event.
    await tick(0);
    await ingest(['coffee 3']);
    await host.caughtUp();
    await tick(60_000);
    const kept = await store.readTypes([MATCHED_TYPE]);
    expect(kept.map((e) => (e.data as { items: { interaction: { fb: { content: string } } }[] }).items[0]!.interaction.fb.content)).toEqual(['coffee 3']);
    // Delivery goes on after the drop.
    await ingest(['coffee 4']);
    await host.caughtUp();
    expect((await reader.next()).data.fb.content).toBe('coffee 3');
    expect((await reader.next()).data.fb.content).toBe('coffee 4');
    await reader.cancel();
  });
});
