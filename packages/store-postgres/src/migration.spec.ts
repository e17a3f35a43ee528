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

    it("a process of an older build appends through its own form of the function, taking the new build's positions and locks", async () => {
      const store = await PostgresEventStore.connect(db.url, { schema });
      const client = new pg.Client(db.url);
      await client.connect();
      const s = `"${schema}"`;
      try {
        await store.clear();
        await store.append([{ stream: 'a', expectedVersion: 0, events: [{ id: 'n1', type: 'T', data: {}, time: 1 }] }]);
        // The nine-argument form (schema 3 and 4 builds), then the eight-argument one (before event schema versions).
        const nine = await client.query(`SELECT ${s}.sdp_append($1, $2, $3, $4, $5, $6, $7, $8, $9) AS out`, [[1], ['a'], [1], [1], ['o2'], ['T'], ['{}'], [2], [3]]);
        expect(nine.rows[0].out.map(Number)).toEqual([2, 2]);
        const eight = await client.query(`SELECT ${s}.sdp_append($1, $2, $3, $4, $5, $6, $7, $8) AS out`, [[1], ['a'], [1], [1], ['o3'], ['T'], ['{}'], [3]]);
        expect(eight.rows[0].out.map(Number)).toEqual([2, -1]);
        expect((await store.readAll()).map((e) => [e.id, e.position, e.schemaVersion])).toEqual([['n1', 1, 1], ['o2', 2, 3]]);
        expect((await store.append([{ stream: 'b', expectedVersion: 0, events: [{ id: 'n3', type: 'T', data: {}, time: 4 }] }])).lastPosition).toBe(3);
      } finally {
        await client.end();
        await store.close();
      }
    });

    it('opens a store of schema version 5 with events: they stay readable, and positions go on after them', async () => {
      const client = new pg.Client(db.url);
      await client.connect();
      const s5 = `${schema}_5`;
      const s = `"${s5}"`;
      try {
        await client.query(`CREATE SCHEMA ${s}`);
        await client.query(`CREATE TABLE ${s}.sdp_meta (key text PRIMARY KEY, value text NOT NULL)`);
        for (const step of MIGRATIONS.slice(0, 5)) await client.query(step(s));
        await client.query(`INSERT INTO ${s}.sdp_meta (key, value) VALUES ('schema_version', '5')`);
        await client.query(`INSERT INTO ${s}.events (position, stream, version, id, type, data, time) VALUES (1, 'x', 1, 'x1', 'T', '{}', 1), (2, 'x', 2, 'x2', 'T', '{}', 2)`);
        const store = await PostgresEventStore.connect(db.url, { schema: s5 });
        try {
          expect(await store.head()).toBe(2);
          expect((await store.append([{ stream: 'x', expectedVersion: 2, events: [{ id: 'x3', type: 'T', data: {}, time: 3 }] }])).lastPosition).toBe(3);
          expect((await store.readAll()).map((e) => e.id)).toEqual(['x1', 'x2', 'x3']);
        } finally {
          await store.close();
        }
      } finally {
        await client.query(`DROP SCHEMA IF EXISTS ${s} CASCADE`);
        await client.end();
      }
    });
  });
}
