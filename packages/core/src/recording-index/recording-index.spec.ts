import { describe, expect } from 'vitest';
import { fc, test } from '@fast-check/vitest';
import { RecordedSet } from './recording-index.ts';

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
