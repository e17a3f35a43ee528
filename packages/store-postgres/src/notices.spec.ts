import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { ANY_VERSION, followLog, type NewEvent } from '@sdp/core/kernel';
import { PostgresEventStore } from './postgres-store.ts';
import { testDatabase, testSchema } from '../test/test-database.ts';

const db = await testDatabase();
const schema = testSchema('notices');
let n = 0;
const ev = (): NewEvent => ({ id: `n${++n}`, type: 'Happened', data: { n }, time: 1_700_000_000_000 + n });

describe.skipIf('skip' in db)('commit notices across PostgreSQL handles', () => {
  const url = 'url' in db ? db.url : '';
  afterAll(async () => {
    const store = await PostgresEventStore.connect(url, { schema });
    await store.drop();
    await store.close();
  });

  it("a watcher's LISTEN connection ended by the server: the head poll stands in, then it listens again", { timeout: 30_000 }, async () => {
    const writer = await PostgresEventStore.connect(url, { schema, poolSize: 2 });
    const watcher = await PostgresEventStore.connect(url, { schema, poolSize: 2 });
    const admin = new pg.Client(url);
    await admin.connect();
    const seen: string[] = [];
    let follower: ReturnType<typeof followLog> | undefined;
    const listeners = async () => (await admin.query(`SELECT pid FROM pg_stat_activity WHERE application_name = $1`, [`sdp listen ${schema}`])).rows.map((r) => r.pid as number);
    try {
      await writer.clear();
      const before = new Set(await listeners());
      follower = followLog(watcher, (page) => void seen.push(...page.map((e) => e.id)), { after: 0 });
      await expect.poll(async () => (await listeners()).filter((p) => !before.has(p)).length, { timeout: 5000 }).toBe(1);
      const ours = (await listeners()).filter((p) => !before.has(p));

      const first = ev();
      await writer.append([{ stream: 'a', expectedVersion: ANY_VERSION, events: [first] }]);
      // Heard through NOTIFY: the head poll does not run while the LISTEN connection is up.
      await expect.poll(() => seen, { timeout: 2000, interval: 5 }).toEqual([first.id]);

      await admin.query('SELECT pg_terminate_backend(pid) FROM unnest($1::int[]) AS pid', [ours]);
      await new Promise((r) => setTimeout(r, 50));
      const second = ev();
      await writer.append([{ stream: 'a', expectedVersion: ANY_VERSION, events: [second] }]);
      // Before a new LISTEN connection is tried (a second after the loss): the poll heard it.
      await expect.poll(() => seen, { timeout: 700 }).toEqual([first.id, second.id]);

      // A new LISTEN connection, and notices through it again.
      await expect.poll(async () => (await listeners()).filter((p) => !before.has(p) && !ours.includes(p)).length, { timeout: 5000 }).toBe(1);
      const third = ev();
      await writer.append([{ stream: 'a', expectedVersion: ANY_VERSION, events: [third] }]);
      await expect.poll(() => seen, { timeout: 2000 }).toEqual([first.id, second.id, third.id]);
    } finally {
      follower?.stop();
      await admin.end();
      await Promise.all([writer.close(), watcher.close()]);
    }
  });

  it('no LISTEN connection while nobody watches, and none left after the last watcher stops', { timeout: 30_000 }, async () => {
    const store = await PostgresEventStore.connect(url, { schema, poolSize: 2 });
    const admin = new pg.Client(url);
    await admin.connect();
    const count = async () => Number((await admin.query(`SELECT count(*) AS n FROM pg_stat_activity WHERE application_name = $1`, [`sdp listen ${schema}`])).rows[0].n);
    try {
      const base = await count();
      const stop = store.watchCommits(() => {});
      await expect.poll(count, { timeout: 5000 }).toBe(base + 1);
      stop();
      await expect.poll(count, { timeout: 5000 }).toBe(base);
    } finally {
      await admin.end();
      await store.close();
    }
  });
});

if ('skip' in db) console.warn(db.skip);
