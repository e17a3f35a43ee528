import { describe, expect, it } from 'vitest';
import { Engine } from '../pipeline/engine.ts';
import { MemoryEventStore } from '../kernel/memory-store.ts';
import { seededIds } from '../kernel/ports.ts';
import { filterHandlers } from '../filters/handlers.ts';
import { recordInteractions } from '../recordings/record-interactions.ts';
import { accountDecider, accountStream } from '../accounting/account.ts';
import { streamHandlers } from './stream-handlers.ts';
import { StreamCalls } from './stream-calls.ts';

const T0 = Date.parse('2026-03-01T12:00:00Z');
const KEY = 'alice-key-01';
const ALICE = { username: 'alice', apiKey: KEY };

async function platform(pkg: Record<string, unknown> = {}) {
  const store = new MemoryEventStore();
  let now = T0;
  const engine = new Engine({ store, clock: { now: () => now }, ids: seededIds(3), handlers: { ...filterHandlers, ...streamHandlers } });
  await engine.openAccount({ username: 'alice', api_key: KEY, package: pkg });
  const compile = async (csdl: string): Promise<string> =>
    ((await engine.call({ version: '1.5', endpoint: 'core.compile', credentials: ALICE, params: { csdl } })).body as { hash: string }).hash;
  const remaining = async () => (await engine.accountView('alice')).allowances.general.remaining;
  const ingest = (items: Record<string, unknown>[]) =>
    engine.command(async (uow) => recordInteractions({ uow, account: await uow.load(accountDecider, accountStream('alice')), settings: engine.settings, now: uow.now }, items));
  const matched = async () => (await store.readTypes(['StreamInteractionsMatched'])).map((e) => e.data as { items: { hashes: string[]; interaction: { interaction: { id: string } } }[] });
  const calls = new StreamCalls(engine);
  const open = async (transport: 'websocket' | 'http' = 'websocket') => {
    const a = await calls.open(ALICE, transport);
    expect(a.status).toBe(200);
    return (a.body as { connection: string }).connection;
  };
  return { engine, store, calls, open, compile, remaining, ingest, matched, advance: (ms: number) => (now += ms) };
}

describe('the stream through the engine\'s one door', () => {
  it('authenticates as the API does: 401 for a wrong key, an unknown name or none, 403 for a denied account', async () => {
    const { engine, calls } = await platform();
    expect((await calls.open({ username: 'alice', apiKey: 'wrong-key-01' }, 'websocket')).status).toBe(401);
    expect((await calls.open({ username: 'nobody', apiKey: KEY }, 'websocket')).status).toBe(401);
    expect((await calls.open(undefined, 'websocket')).status).toBe(401);
    const opened = await calls.open(ALICE, 'websocket');
    expect(opened).toMatchObject({ status: 200, rate: { limit: 10_000, remaining: 10_000 } });
    await engine.deny('alice', 'spam');
    expect((await calls.open(ALICE, 'websocket')).status).toBe(403);
  });

  it('charges 5 for a subscription, nothing for its repeat, and refuses an unknown hash with 404 and a spent allowance with 429, charging nothing', async () => {
    const { calls, open, compile, remaining } = await platform({ credits_per_hour: 17 });
    const hash = await compile('fb.content contains "coffee"');
    const other = await compile('fb.content contains "tea"');
    const conn = await open();
    expect(await remaining()).toBe(7);
    const first = await calls.subscribe(ALICE, conn, hash);
    expect(first).toMatchObject({ status: 200, body: { hash, charged: true }, rate: { remaining: 2, cost: 5 } });
    expect(await remaining()).toBe(2);
    expect(await calls.subscribe(ALICE, conn, hash)).toMatchObject({ status: 200, body: { charged: false }, rate: { remaining: 2 } });
    expect(await calls.subscribe(ALICE, conn, 'f'.repeat(32))).toMatchObject({ status: 404, body: { error: `The hash ${'f'.repeat(32)} doesn't exist` } });
    expect(await calls.subscribe(ALICE, conn, other)).toMatchObject({ status: 429, rate: { remaining: 2, cost: 5 } });
    expect(await remaining()).toBe(2);
  });

  it('a subscription needs the key: a replaced key is refused 401, while closing the connection still works for a denied account', async () => {
    const { engine, calls, open, compile } = await platform();
    const hash = await compile('fb.content contains "coffee"');
    const conn = await open();
    await engine.replaceApiKey('alice', 'new-key-000001');
    expect((await calls.subscribe(ALICE, conn, hash)).status).toBe(401);
    await engine.deny('alice', 'spam');
    expect(await calls.close('alice', conn, 'client closed')).toMatchObject({ status: 200, body: { changed: true } });
    expect(await calls.close('alice', conn, 'client closed')).toMatchObject({ status: 200, body: { changed: false } });
  });

  it('a connection is another account\'s to subscribe only by its own key: another account\'s connection id is 404', async () => {
    const { engine, calls, open, compile } = await platform();
    await engine.openAccount({ username: 'bob', api_key: 'bob-key-000001' });
    const hash = await compile('fb.content contains "coffee"');
    const conn = await open();
    expect((await calls.subscribe({ username: 'bob', apiKey: 'bob-key-000001' }, conn, hash)).status).toBe(404);
  });

  it('bounds the opens of an hour: free opens and closes cannot grow the log past the bound', async () => {
    const { calls, store, advance } = await platform({ stream_connections: 1 });
    let refused = 0;
    for (let i = 0; i < 70; i++) {
      const a = await calls.open(ALICE, 'http');
      if (a.status !== 200) {
        refused++;
        expect(a).toMatchObject({ status: 429, body: { limit: 'stream_opens' } });
        continue;
      }
      await calls.close('alice', (a.body as { connection: string }).connection, 'client closed');
    }
    expect(refused).toBe(10);
    expect((await store.readTypes(['StreamConnected'])).length).toBe(60);
    advance(3_600_001);
    expect((await calls.open(ALICE, 'http')).status).toBe(200);
  });

  it('what enters the platform is matched for the live hashes only, after they were subscribed, and not after the disconnect', async () => {
    const { calls, open, compile, ingest, matched } = await platform();
    const coffee = await compile('fb.content contains "coffee"');
    const tea = await compile('fb.content contains "tea"');
    await ingest([{ interaction: { id: 'before' }, fb: { content: 'coffee' } }]);
    expect(await matched()).toEqual([]);
    const conn = await open('http');
    await calls.subscribe(ALICE, conn, coffee);
    await ingest([{ interaction: { id: 'a' }, fb: { content: 'coffee and tea' } }, { interaction: { id: 'b' }, fb: { content: 'milk' } }]);
    await calls.subscribe(ALICE, conn, tea);
    await ingest([{ interaction: { id: 'c' }, fb: { content: 'coffee and tea' } }]);
    await calls.close('alice', conn, 'closed');
    await ingest([{ interaction: { id: 'after' }, fb: { content: 'coffee' } }]);
    const items = (await matched()).flatMap((m) => m.items.map((i) => [i.interaction.interaction.id, [...i.hashes].sort()]));
    expect(items).toEqual([['a', [coffee]], ['c', [coffee, tea].sort()]]);
  });
});
