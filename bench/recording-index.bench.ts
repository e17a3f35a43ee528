import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RecordingIndex } from '@sdp/core';
import { MemoryEventStore, type EventStore, type NewEvent, type StoredEvent } from '@sdp/core/kernel';
import { SqliteEventStore } from '@sdp/store-sqlite';
import { PostgresEventStore } from '@sdp/store-postgres';
import { opsPerSecond, type BenchReport } from './lib.ts';

/**
 * Issue 11's recording index measures, on a log that is mostly charges (every call writes one) with some
 * recorded interactions: the index's catch-up reading only `InteractionsRecorded` beside the same index
 * reading the whole log and skipping the rest (what it did before it asked the store for its types),
 * measured in the same run on each store:
 * - a cold catch-up (a process starting, or the first read after it);
 * - the catch-up every read does when something was written since (100 charges and one recorded batch),
 *   the two indexes taking turns over the same new events, only the catch-ups timed (the median round).
 * PostgreSQL runs when SDP_TEST_POSTGRES names a server.
 */
const CHARGES = Number(process.env.SDP_INDEX_BENCH_CHARGES ?? 100_000);
const RECORDED = 1_000;
const T = Date.parse('2026-03-01T10:00:00Z');
let seq = 0;
const charge = (): NewEvent => ({ id: `c${++seq}`, type: 'CreditsCharged', data: { at: T, endpoint: 'insight.get', lines: [{ key: 'general', cost: 5, start: T }] }, time: T });
const recorded = (): NewEvent => {
  const n = ++seq;
  const items = Array.from({ length: 5 }, (_, k) => ({
    at: T - k * 1000,
    interaction: { interaction: { id: `i${n}-${k}`, content: 'coffee' }, fb: { author: { id: `a${(n + k) % 500}` }, content: 'coffee' } },
    matches: [{ recording: `r${n % 10}`, tags: [] }],
  }));
  return { id: `r${n}`, type: 'InteractionsRecorded', data: { day: '2026-03-01', items, kept: {}, refused: {} }, time: T };
};

/** The index as it read before: every event of the log, page by page, keeping those of its types. */
function wholeLog(store: EventStore): EventStore {
  return Object.assign(Object.create(store) as EventStore, {
    async readTypes(types: readonly string[], after = 0, limit = Number.MAX_SAFE_INTEGER): Promise<StoredEvent[]> {
      const out: StoredEvent[] = [];
      for (let at = after; out.length < limit; ) {
        const page = await store.readAll(at, 2000);
        if (page.length === 0) break;
        for (const e of page) if (types.includes(e.type) && out.length < limit) out.push(e);
        at = page[page.length - 1]!.position;
      }
      return out;
    },
  });
}

async function fill(store: EventStore): Promise<void> {
  const every = Math.floor(CHARGES / RECORDED);
  let batch: NewEvent[] = [];
  for (let k = 0; k < CHARGES; k++) {
    batch.push(charge());
    if (k % every === 0) {
      await store.append([{ stream: 'credits:bench', expectedVersion: -1, events: batch }]);
      await store.append([{ stream: 'capacity:bench:2026-03-01', expectedVersion: -1, events: [recorded()] }]);
      batch = [];
    }
  }
  if (batch.length > 0) await store.append([{ stream: 'credits:bench', expectedVersion: -1, events: batch }]);
}

async function report(name: string, store: EventStore, ms: number): Promise<BenchReport> {
  await fill(store);
  const before = wholeLog(store);
  const rows = async (s: EventStore) => {
    const index = new RecordingIndex(s);
    await index.catchUp();
    return index.recording('r1')!.size;
  };
  const expected = await rows(store);
  if ((await rows(before)) !== expected) throw new Error(`recording-index bench: the two reads disagree on ${name}`);
  const coldBefore = await opsPerSecond(() => rows(before), ms, 1);
  const coldAfter = await opsPerSecond(() => rows(store), ms, 1);

  // Reads after 100 charges and one recorded batch were written since the last: both indexes read the
  // same new events, turn about, and only their catch-ups are timed.
  const indexes = [new RecordingIndex(before), new RecordingIndex(store)] as const;
  for (const index of indexes) await index.catchUp();
  const spent: [number[], number[]] = [[], []];
  const rounds = Math.max(50, Math.round(ms / 10));
  for (let k = 0; k < rounds; k++) {
    await store.append([{ stream: 'credits:bench', expectedVersion: -1, events: Array.from({ length: 100 }, charge) }]);
    await store.append([{ stream: 'capacity:bench:2026-03-01', expectedVersion: -1, events: [recorded()] }]);
    for (const i of k % 2 === 0 ? [0, 1] : [1, 0]) {
      const t = performance.now();
      await indexes[i]!.catchUp();
      spent[i]!.push(performance.now() - t);
    }
  }
  if (indexes[0].recording('r1')!.size !== indexes[1].recording('r1')!.size) throw new Error(`recording-index bench: the two reads disagree on ${name}`);
  // The median round: a collection of the large heap landing in one side's turn says nothing of the read.
  const median = (xs: number[]) => xs.sort((x, y) => x - y)[xs.length >> 1]!;
  const incBefore = 1000 / median(spent[0]);
  const incAfter = 1000 / median(spent[1]);
  const head = await store.head();
  return {
    title: `recording index on ${name}: a log of ${head.toLocaleString('en-US')} events, ${RECORDED.toLocaleString('en-US')} of them InteractionsRecorded`,
    baseline: { name: 'cold catch-up reading the whole log (before)', opsPerSec: coldBefore, extra: { ms_each: (1000 / coldBefore).toFixed(1) } },
    subjects: [
      { name: 'cold catch-up reading only InteractionsRecorded', opsPerSec: coldAfter, extra: { ms_each: (1000 / coldAfter).toFixed(1) } },
      { name: 'read after 100 charges + 1 batch, whole log (before)', opsPerSec: incBefore, extra: { us_each: ((1000 * 1000) / incBefore).toFixed(0) } },
      { name: 'read after 100 charges + 1 batch, only its types', opsPerSec: incAfter, extra: { vs_before: `${(incAfter / incBefore).toFixed(2)}x`, us_each: ((1000 * 1000) / incAfter).toFixed(0) } },
    ],
  };
}

export default async function recordingIndexBench(): Promise<BenchReport[]> {
  const out: BenchReport[] = [];
  out.push(await report('the memory store', new MemoryEventStore(), 2000));
  const dir = mkdtempSync(join(tmpdir(), 'sdp-index-bench-'));
  const sqlite = new SqliteEventStore(join(dir, 'bench.db'));
  try {
    out.push(await report('SQLite (a file)', sqlite, 3000));
  } finally {
    await sqlite.close();
    rmSync(dir, { recursive: true, force: true });
  }
  const url = process.env.SDP_TEST_POSTGRES;
  if (url) {
    const schema = `sdp_bench_index_${process.pid}`;
    const pg = await PostgresEventStore.connect(url, { schema });
    try {
      await pg.clear();
      out.push(await report('PostgreSQL', pg, 3000));
    } finally {
      await pg.drop();
      await pg.close();
    }
  }
  return out;
}
