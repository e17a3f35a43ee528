import { describe, expect, it } from 'vitest';
import { Engine } from '../pipeline/engine.ts';
import { MemoryEventStore } from '../kernel/memory-store.ts';
import { seededIds } from '../kernel/ports.ts';
import { filterHandlers } from '../filters/handlers.ts';
import { recordInteractions } from '../recordings/record-interactions.ts';
import { accountDecider, accountStream } from '../accounting/account.ts';
import { StreamCalls } from './stream-calls.ts';
import { streamHandlers } from './stream-handlers.ts';
import { matchedStreamHashes } from './match-streams.ts';
import { matchBytes, relayBytesPerWindow, type RelayNotice, type StreamMatch } from './matched-relay.ts';

const T0 = Date.parse('2026-03-01T12:00:00Z');
const KEY = 'alice-key-01';

async function platform(pkg: Record<string, unknown>) {
  const store = new MemoryEventStore();
  let now = T0;
  const engine = new Engine({ store, clock: { now: () => now }, ids: seededIds(3), handlers: { ...filterHandlers, ...streamHandlers } });
  await engine.openAccount({ username: 'alice', api_key: KEY, package: pkg });
  const compile = async (csdl: string): Promise<string> =>
    ((await engine.call({ version: '1.5', endpoint: 'core.compile', credentials: { username: 'alice', apiKey: KEY }, params: { csdl } })).body as { hash: string }).hash;
  const ingest = (items: Record<string, unknown>[]) =>
    engine.command(async (uow) => recordInteractions({ uow, account: await uow.load(accountDecider, accountStream('alice')), settings: engine.settings, now: uow.now }, items));
  const relayed = async () => (await store.readTypes(['StreamInteractionsMatched'])).map((e) => e.data as { items: StreamMatch[] } & RelayNotice);
  const calls = new StreamCalls(engine);
  const creds = { username: 'alice', apiKey: KEY };
  // The stream's calls as these cases read them: a connection's id, a subscription that must go through.
  const gate = {
    open: async (_user: string, transport: 'websocket' | 'http') => ((await calls.open(creds, transport)).body as { connection: string }).connection,
    subscribe: async (_user: string, connection: string, hash: string) => {
      const a = await calls.subscribe(creds, connection, hash);
      if (a.status !== 200) throw new Error(`subscribe: ${a.status} ${JSON.stringify(a.body)}`);
      return a.body;
    },
  };
  return { gate, compile, ingest, relayed, later: (ms: number) => (now += ms) };
}

describe('matching for streams over the engine', () => {
  it("given more live hashes than the package matches, when an interaction enters, then the first in hash order are matched and the rest named once a minute", async () => {
    const pkg = { concurrent_recordings: 1 };
    const limit = matchedStreamHashes(pkg);
    const { gate, compile, ingest, relayed, later } = await platform(pkg);
    const hashes: string[] = [];
    for (let i = 0; i <= limit + 1; i++) hashes.push(await compile(`fb.content contains "coffee" OR fb.content contains "w${i}"`));
    const conn = await gate.open('alice', 'websocket');
    for (const hash of hashes) await gate.subscribe('alice', conn, hash);
    const sorted = [...hashes].sort();
    await ingest([{ interaction: { id: 'a' }, fb: { content: 'coffee' } }]);
    await ingest([{ interaction: { id: 'b' }, fb: { content: 'coffee' } }]);
    later(60_000);
    await ingest([{ interaction: { id: 'c' }, fb: { content: 'coffee' } }]);
    const events = await relayed();
    expect(events.map((e) => e.items[0]!.hashes.sort())).toEqual([sorted.slice(0, limit), sorted.slice(0, limit), sorted.slice(0, limit)]);
    expect(events.map((e) => e.unmatched)).toEqual([sorted.slice(limit), undefined, sorted.slice(limit)]);
  });

  it("given matches past the account's budget, when they enter, then the ingestion succeeds, the relay carries what fits and names the hash once", async () => {
    const pkg = { credits_per_hour: 20 };
    const { gate, compile, ingest, relayed } = await platform(pkg);
    const hash = await compile('fb.content contains "coffee"');
    const conn = await gate.open('alice', 'websocket');
    await gate.subscribe('alice', conn, hash);
    const big = (id: string) => ({ interaction: { id }, fb: { content: `coffee ${'x'.repeat(4000)}` } });
    const fits = Math.floor(relayBytesPerWindow(pkg) / matchBytes({ hashes: [hash], interaction: big('a0') }));
    const result = await ingest(Array.from({ length: fits + 3 }, (_, k) => big(`a${k}`)));
    expect(result).toMatchObject({ accepted: fits + 3 });
    await ingest([big('later')]);
    const events = await relayed();
    expect(events).toHaveLength(1);
    expect(events[0]!.items).toHaveLength(fits);
    expect(events[0]!.dropped).toEqual({ count: 3, hashes: [hash] });
  });
});
