import { afterAll, describe, it } from 'vitest';
import { hostLivenessContract, storeContract } from '@sdp/testing';
import { PostgresEventStore } from './postgres-store.ts';
import { testDatabase, testSchema } from '../test/test-database.ts';

const db = await testDatabase();
const schema = testSchema('contract');

if ('skip' in db) {
  describe('PostgreSQL store', () => {
    it.skip(db.skip, () => {});
  });
  console.warn(db.skip);
} else {
  afterAll(async () => {
    const store = await PostgresEventStore.connect(db.url, { schema });
    await store.drop();
    await store.close();
  });
  storeContract('PostgreSQL store', async () => {
    const store = await PostgresEventStore.connect(db.url, { schema });
    await store.clear();
    return store;
  }, { opensAgain: () => PostgresEventStore.connect(db.url, { schema }) });
  hostLivenessContract('PostgreSQL store', async () => {
    const store = await PostgresEventStore.connect(db.url, { schema: `${schema}_live` });
    await store.clear();
    return store;
  }, () => PostgresEventStore.connect(db.url, { schema: `${schema}_live` }));
  afterAll(async () => {
    const store = await PostgresEventStore.connect(db.url, { schema: `${schema}_live` });
    await store.drop();
    await store.close();
  });
}
