import { describe, expect, it } from 'vitest';
import { fc, test } from '@fast-check/vitest';
import { MemoryEventStore } from '../kernel/memory-store.ts';
import { InteractionsNotKept, RecordedSet, RecordingIndex } from './recording-index.ts';

/** An index over an empty store, told of `n` interactions of recording r1, one a minute. */
function told(index: RecordingIndex, n: number, from = 0) {
  const items = Array.from({ length: n }, (_, k) => ({ at: (from + k) * 60_000, interaction: { interaction: { id: `i${from + k}` } }, matches: [{ recording: 'r1', tags: [] }] }));
  index.heard({ id: `e${from}`, type: 'InteractionsRecorded', stream: 'capacity:u:2026-01-01', version: 1, position: from + 1, time: 0, schemaVersion: 1, data: { day: '2026-01-01', items, kept: { r1: n }, refused: {} } });
}

describe('a recorded set', () => {
  test.prop([fc.array(fc.integer({ min: 0, max: 100 }), { maxLength: 80 }), fc.integer({ min: 0, max: 100 }), fc.integer({ min: 0, max: 100 }), fc.integer({ min: 1, max: 100 })])(
    'after dropping rows before a cutoff, every window reads exactly the kept rows, in order, with their columns',
    (times, cutoff, from, width) => {
      const set = new RecordedSet();
      times.forEach((t, n) => set.add(t, n % 5, { interaction: { id: `i${n}` }, fb: { type: t % 2 ? 'like' : 'story' } }));
      set.column('fb.type');
      set.dropBefore(cutoff);
      const kept = times.map((t, n) => ({ t, n })).filter((x) => x.t >= cutoff);
      expect(set.size).toBe(kept.length);
      const rows = [...set.rowsBetween(from, from + width)];
      expect(rows.map((r) => (set.docs[r]!.interaction as { id: string }).id)).toEqual(kept.filter((x) => x.t >= from && x.t < from + width).map((x) => `i${x.n}`));
      const col = set.column('fb.type');
      expect(rows.map((r) => col.keys[col.values.data[col.offsets.data[r]!]!])).toEqual(rows.map((r) => (set.times.data[r]! % 2 ? 'like' : 'story')));
      expect([...set.rowsBetween(-1, 1000)]).toEqual(kept.map((_, k) => k));
    },
  );
});

describe('an index that counts interactions', () => {
  it('counted from the start: rows and their hours, no interaction; a read of one throws and is remembered', () => {
    const index = new RecordingIndex(new MemoryEventStore(), { interactions: 'counted' });
    told(index, 90);
    const set = index.recording('r1')!;
    expect(set.size).toBe(90);
    expect(set.hours.count(0, 3_600_000)).toBe(60);
    expect(index.interactionsAsked).toBe(false);
    expect(() => set.column('interaction.id')).toThrow(InteractionsNotKept);
    expect(index.interactionsAsked).toBe(true);
    expect(index.interactionsRead).toBe(true);
  });

  it('kept, then told to keep none: the kept ones go and later rows keep none, the counts stay', () => {
    const index = new RecordingIndex(new MemoryEventStore());
    told(index, 30);
    const set = index.recording('r1')!;
    expect(set.docs).toHaveLength(30);
    expect(index.interactionsRead).toBe(true);
    expect(index.interactionsAsked).toBe(false);
    index.keepNoInteractions();
    told(index, 30, 30);
    expect(set.size).toBe(60);
    expect(set.hours.count(0, 3_600_000)).toBe(60);
    expect(() => set.docs).toThrow(InteractionsNotKept);
    expect(index.interactionsAsked).toBe(true);
  });
});
