import { afterAll, describe, expect, it } from 'vitest';
import { ANY_VERSION, type NewEvent } from '@sdp/core/kernel';
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
});

if ('skip' in db) console.warn(db.skip);
