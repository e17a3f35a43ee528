import { describe, expect, it } from 'vitest';
import { Engine } from '../pipeline/engine.ts';
import { MemoryEventStore } from '../kernel/memory-store.ts';
import { seededIds } from '../kernel/ports.ts';
import { filterHandlers } from '../filters/handlers.ts';
import { recordInteractions } from '../recordings/record-interactions.ts';
import { accountDecider, accountStream } from '../accounting/account.ts';
import { CreditsExhausted } from '../accounting/credit-window.ts';
import { StreamGate } from './stream-gate.ts';

const T0 = Date.parse('2026-03-01T12:00:00Z');
const KEY = 'alice-key-01';

async function platform(pkg: Record<string, unknown> = {}) {
  const store = new MemoryEventStore();
  const engine = new Engine({ store, clock: { now: () => T0 }, ids: seededIds(3), handlers: { ...filterHandlers } });
  await engine.openAccount({ username: 'alice', api_key: KEY, package: pkg });
  const compile = async (csdl: string): Promise<string> =>
    ((await engine.call({ version: '1.5', endpoint: 'core.compile', credentials: { username: 'alice', apiKey: KEY }, params: { csdl } })).body as { hash: string }).hash;
  const remaining = async () => (await engine.accountView('alice')).allowances.general.remaining;
  const ingest = (items: Record<string, unknown>[]) =>
    engine.command(async (uow) => recordInteractions({ uow, account: await uow.load(accountDecider, accountStream('alice')), settings: engine.settings, now: uow.now }, items));
  const matched = async () => (await store.readTypes(['StreamInteractionsMatched'])).map((e) => e.data as { items: { hashes: string[]; interaction: { interaction: { id: string } } }[] });
  return { engine, gate: new StreamGate(engine), compile, remaining, ingest, matched };
}

describe('the stream gate over the engine', () => {
  it('authenticates: 401 for a wrong key or none, 403 for a denied account', async () => {
    const { engine, gate } = await platform();
    await expect(gate.authenticate({ username: 'alice', apiKey: 'wrong-key-01' })).rejects.toMatchObject({ status: 401 });
    await expect(gate.authenticate({ username: 'nobody', apiKey: KEY })).rejects.toMatchObject({ status: 401 });
    await expect(gate.authenticate(undefined)).rejects.toMatchObject({ status: 401, message: 'A username and API key are both required' });
    expect(await gate.authenticate({ username: 'alice', apiKey: KEY })).toMatchObject({ account: { username: 'alice' }, identityId: null });
    await engine.deny('alice', 'spam');
    await expect(gate.authenticate({ username: 'alice', apiKey: KEY })).rejects.toMatchObject({ status: 403 });
  });

  it('charges 5 for a subscription, nothing for its repeat, and refuses an unknown hash with 404 and a spent allowance with 429, writing nothing', async () => {
    const { gate, compile, remaining } = await platform({ credits_per_hour: 17 });
    const hash = await compile('fb.content contains "coffee"');
    const other = await compile('fb.content contains "tea"');
    const conn = await gate.open('alice', 'websocket');
    expect(await remaining()).toBe(7);
    expect((await gate.subscribe('alice', conn, hash)).charged).toBe(true);
    expect(await remaining()).toBe(2);
    expect((await gate.subscribe('alice', conn, hash)).charged).toBe(false);
    await expect(gate.subscribe('alice', conn, 'f'.repeat(32))).rejects.toMatchObject({ status: 404, message: `The hash ${'f'.repeat(32)} doesn't exist` });
    await expect(gate.subscribe('alice', conn, other)).rejects.toBeInstanceOf(CreditsExhausted);
    expect(await remaining()).toBe(2);
  });

  it('what enters the platform is matched for the live hashes only, after they were subscribed, and not after the disconnect', async () => {
    const { gate, compile, ingest, matched } = await platform();
    const coffee = await compile('fb.content contains "coffee"');
    const tea = await compile('fb.content contains "tea"');
    await ingest([{ interaction: { id: 'before' }, fb: { content: 'coffee' } }]);
    expect(await matched()).toEqual([]);
    const conn = await gate.open('alice', 'http');
    await gate.subscribe('alice', conn, coffee);
    await ingest([{ interaction: { id: 'a' }, fb: { content: 'coffee and tea' } }, { interaction: { id: 'b' }, fb: { content: 'milk' } }]);
    await gate.subscribe('alice', conn, tea);
    await ingest([{ interaction: { id: 'c' }, fb: { content: 'coffee and tea' } }]);
    await gate.close('alice', conn, 'closed');
    await ingest([{ interaction: { id: 'after' }, fb: { content: 'coffee' } }]);
    const items = (await matched()).flatMap((m) => m.items.map((i) => [i.interaction.interaction.id, [...i.hashes].sort()]));
    expect(items).toEqual([['a', [coffee]], ['c', [coffee, tea].sort()]]);
  });
});
