import { afterAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { ANY_VERSION, followLog, type NewEvent } from '@sdp/core/kernel';
import { PostgresEventStore } from './postgres-store.ts';
import { testDatabase, testSchema } from '../test/test-database.ts';

const db = await testDatabase();
const schema = testSchema('order');
let n = 0;
const ev = (): NewEvent => ({ id: `o${++n}`, type: 'Happened', data: { n }, time: 1_700_000_000_000 + n });

describe.skipIf('skip' in db)('global order on PostgreSQL', () => {
  const url = 'url' in db ? db.url : '';
  afterAll(async () => {
    const store = await PostgresEventStore.connect(url, { schema });
    await store.drop();
    await store.close();
  });

  it('a reader following the log never sees a gap, while writers in separate pools (as separate processes) append', { timeout: 60_000 }, async () => {
    const writers = await Promise.all([0, 1, 2].map(() => PostgresEventStore.connect(url, { schema, poolSize: 4 })));
    const reader = await PostgresEventStore.connect(url, { schema, poolSize: 2 });
    await reader.clear();
    let writing = true;
    const perWriter = 150;
    const writing$ = Promise.all(
      writers.map(async (w, i) => {
        // Batches of concurrent appends of different sizes, so transactions overlap and differ in length.
        for (let k = 0; k < perWriter; k += 5) {
          await Promise.all(Array.from({ length: 5 }, (_, j) => w.append([{ stream: `w${i}:${j}`, expectedVersion: ANY_VERSION, events: Array.from({ length: 1 + ((k + j) % 3) }, ev) }])));
        }
      }),
    ).finally(() => (writing = false));

    let seen = 0;
    let reads = 0;
    while (writing || seen < (await reader.head())) {
      const page = await reader.readAll(seen, 50);
      reads++;
      for (const e of page) {
        // Each event read is the very next position: nothing was skipped to appear later.
        expect(e.position).toBe(seen + 1);
        seen = e.position;
      }
    }
    await writing$;
    expect(seen).toBe(await reader.head());
    expect(reads).toBeGreaterThan(1);
    for (const s of [...writers, reader]) await s.close();
  });

  it('a position taken by a transaction still open holds readers back, in every handle, until it commits or rolls back; then they read on, told by the watcher', { timeout: 30_000 }, async () => {
    const writer = await PostgresEventStore.connect(url, { schema, poolSize: 2 });
    const reader = await PostgresEventStore.connect(url, { schema, poolSize: 2 });
    const slow = new pg.Client(url);
    await slow.connect();
    const followed: number[] = [];
    let follower: ReturnType<typeof followLog> | undefined;
    try {
      await writer.clear();
      follower = followLog(reader, (page) => void followed.push(...page.map((e) => e.position)), { after: 0 });
      await follower.caughtUp();
      const s = `"${schema}"`;
      // Another process's append, its transaction held open after it took position 1.
      const held = (stream: string) =>
        slow.query(`SELECT ${s}.sdp_append($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`, [[1], [stream], [-1], [null], [1], [`${stream}-1`], ['Happened'], ['{}'], [1], [1]]);
      await slow.query('BEGIN');
      await held('slow');
      expect(await writer.append([{ stream: 'fast', expectedVersion: 0, events: [ev()] }])).toEqual({ versions: [1], lastPosition: 2 });
      expect(await reader.head()).toBe(0);
      expect(await reader.readAll()).toEqual([]);
      expect(await reader.readTypes(['Happened'])).toEqual([]);
      await new Promise((r) => setTimeout(r, 100));
      expect(followed).toEqual([]);
      // The writer's own reads wait for its write to be readable, a while at most; once such a wait has
      // run out, they stop waiting until the head reaches the write.
      let t = performance.now();
      expect(await writer.head()).toBe(0);
      expect(performance.now() - t).toBeGreaterThan(1900);
      t = performance.now();
      expect(await writer.readAll()).toEqual([]);
      expect(performance.now() - t).toBeLessThan(1000);
      await slow.query('COMMIT');
      await expect.poll(() => followed, { timeout: 5000 }).toEqual([1, 2]);
      expect(await reader.head()).toBe(2);

      // Rolled back: its position is never used, and nothing waits for it.
      await slow.query('BEGIN');
      await held('undone');
      expect((await writer.append([{ stream: 'fast', expectedVersion: 1, events: [ev()] }])).lastPosition).toBe(4);
      expect(await reader.head()).toBe(2);
      await slow.query('ROLLBACK');
      await expect.poll(() => followed, { timeout: 5000 }).toEqual([1, 2, 4]);
      expect((await reader.readAll(2)).map((e) => e.position)).toEqual([4]);
      expect(await reader.head()).toBe(4);
    } finally {
      follower?.stop();
      await slow.end();
      await Promise.all([writer.close(), reader.close()]);
    }
  });
});

if ('skip' in db) console.warn(db.skip);
