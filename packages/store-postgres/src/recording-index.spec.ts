import { afterAll, describe, expect, it } from 'vitest';
import { createEngine, type Engine } from '@sdp/core';
import { accountDecider } from '@sdp/core/deciders';
import { recordInteractions } from '@sdp/core/internal';
import { seededIds } from '@sdp/core/kernel';
import { PostgresEventStore } from './postgres-store.ts';
import { testDatabase, testSchema } from '../test/test-database.ts';

const db = await testDatabase();
const schema = testSchema('index');
const T0 = Date.parse('2026-03-01T12:00:00Z');
const credentials = { username: 'alice', apiKey: 'alice-key-01' };
const post = (n: number, content: string) => ({
  interaction: { id: `i${n}`, content, created_at: Math.floor(T0 / 1000) - 60 + n },
  fb: { author: { id: `a${n}` }, content },
});

/** What a server process does with a batch from a source: record it for the account's running recordings. */
const feed = (engine: Engine, items: Record<string, unknown>[]) =>
  engine.command(async (uow) => recordInteractions({ uow, account: await uow.load(accountDecider, 'account:alice'), settings: engine.settings, now: uow.now }, items));

describe.skipIf('skip' in db)('the recording index over one PostgreSQL store shared by two processes', () => {
  const url = 'url' in db ? db.url : '';
  afterAll(async () => {
    const store = await PostgresEventStore.connect(url, { schema });
    await store.drop();
    await store.close();
  });

  it("each engine's reads see what the other recorded, and each index trails the log by nothing once caught up", { timeout: 60_000 }, async () => {
    // Two pools, as two server processes would hold.
    const stores = await Promise.all([0, 1].map(() => PostgresEventStore.connect(url, { schema, poolSize: 2 })));
    await stores[0]!.clear();
    const [a, b] = stores.map((store, i) => createEngine({ store, clock: { now: () => T0 }, ids: seededIds(20 + i) })) as [Engine, Engine];
    try {
      await a.openAccount({ username: 'alice', api_key: credentials.apiKey });
      const call = (engine: Engine, endpoint: 'insight.compile' | 'insight.start' | 'insight.get', params: Record<string, unknown>) =>
        engine.call({ version: '1.5', endpoint, credentials, params });
      const hash = ((await call(a, 'insight.compile', { csdl: 'fb.content contains "coffee"' })).body as { hash: string }).hash;
      const id = ((await call(b, 'insight.start', { hash, name: 'c' })).body as { id: string }).id;
      expect((await call(b, 'insight.get', { id })).body).toMatchObject({ volume: 0 });

      await feed(a, [post(1, 'coffee'), post(2, 'tea'), post(3, 'coffee')]);
      expect((await call(b, 'insight.get', { id })).body).toMatchObject({ volume: 2 });
      await feed(b, [post(4, 'coffee')]);
      expect((await call(a, 'insight.get', { id })).body).toMatchObject({ volume: 3 });
      expect((await call(b, 'insight.get', { id })).body).toMatchObject({ volume: 3 });

      // Both caught up to the log's head, though its newest events are charges the index never reads.
      for (const engine of [a, b]) {
        await engine.recordingIndex.catchUp();
        expect(await engine.recordingIndex.lag()).toBe(0);
        expect(engine.recordingIndex.checkpoint).toBe(await stores[0]!.head());
      }
    } finally {
      await Promise.all(stores.map((s) => s.close()));
    }
  });
});
