import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { PostgresEventStore } from './postgres-store.ts';
import { MIGRATIONS, SCHEMA_VERSION } from './schema.ts';
import { testDatabase, testSchema } from '../test/test-database.ts';

const db = await testDatabase();
const schema = testSchema('migration');

if ('skip' in db) {
  describe('PostgreSQL store migration', () => {
    it.skip(db.skip, () => {});
  });
} else {
  afterAll(async () => {
    const client = new pg.Client(db.url);
    await client.connect();
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await client.end();
  });

  describe('PostgreSQL store migration', () => {
    it('opens a store of schema version 2: its events read at event schema version 1, new ones keep theirs', async () => {
      const client = new pg.Client(db.url);
      await client.connect();
      const s = `"${schema}"`;
      await client.query(`CREATE SCHEMA ${s}`);
      await client.query(`CREATE TABLE ${s}.sdp_meta (key text PRIMARY KEY, value text NOT NULL)`);
      for (const step of MIGRATIONS.slice(0, 2)) await client.query(step(s));
      await client.query(`INSERT INTO ${s}.sdp_meta (key, value) VALUES ('schema_version', '2')`);
      await client.query(`INSERT INTO ${s}.events (position, stream, version, id, type, data, time) VALUES (1, 'account:old', 1, 'old1', 'AccountOpened', '{"username":"old"}', 1000)`);
      await client.end();

      const store = await PostgresEventStore.connect(db.url, { schema });
      try {
        expect(await store.readStream('account:old')).toEqual([
          { position: 1, stream: 'account:old', version: 1, id: 'old1', type: 'AccountOpened', data: { username: 'old' }, time: 1000, schemaVersion: 1 },
        ]);
        await store.append([{ stream: 'account:old', expectedVersion: 1, events: [{ id: 'new2', type: 'PackageChanged', data: {}, time: 2000, schemaVersion: 2 }] }]);
        expect((await store.readAll()).map((e) => [e.id, e.schemaVersion])).toEqual([['old1', 1], ['new2', 2]]);
      } finally {
        await store.close();
      }
      const check = new pg.Client(db.url);
      await check.connect();
      const meta = await check.query(`SELECT value FROM ${s}.sdp_meta WHERE key = 'schema_version'`);
      await check.end();
      expect(Number(meta.rows[0].value)).toBe(SCHEMA_VERSION);
    });
  });
}
