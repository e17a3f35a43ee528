import { afterAll, describe, it } from 'vitest';
import { expectRaceHeldOverConnections, readGuardRace } from '@sdp/testing';
import { PostgresEventStore } from './postgres-store.ts';
import { testDatabase, testSchema } from '../test/test-database.ts';

const db = await testDatabase();
const schema = testSchema('guards');

describe.skipIf('skip' in db)('read guards on PostgreSQL', () => {
  const url = 'url' in db ? db.url : '';
  afterAll(async () => {
    const store = await PostgresEventStore.connect(url, { schema });
    await store.drop();
    await store.close();
  });

  it('two engines over two connections (as two processes): package changes, denials, identity limits and deleted queries racing the calls that read them never leave a decision taken on a stale state', { timeout: 60_000 }, async () => {
    const a = await PostgresEventStore.connect(url, { schema, poolSize: 4 });
    const b = await PostgresEventStore.connect(url, { schema, poolSize: 4 });
    try {
      await a.clear();
      expectRaceHeldOverConnections(await readGuardRace({ a, b }, { seed: 11 }));
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });
});
