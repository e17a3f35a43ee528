import { describe, expect } from 'vitest';
import { fc, test } from '@fast-check/vitest';
import { seededIds } from './ports.ts';

describe('seededIds', () => {
  test.prop([fc.integer(), fc.constantFrom(20, 32, 40)])('gives lowercase hex ids of the asked length, the same for the same seed', (seed, n) => {
    const a = seededIds(seed);
    const b = seededIds(seed);
    for (let i = 0; i < 5; i++) {
      const id = a.hex(n);
      expect(id).toMatch(new RegExp(`^[0-9a-f]{${n}}$`));
      expect(b.hex(n)).toBe(id);
    }
  });

  test.prop([fc.integer()], { numRuns: 20 })('never repeats an id within 100,000 draws', (seed) => {
    const ids = seededIds(seed);
    const seen = new Set<string>();
    for (let i = 0; i < 100_000; i++) seen.add(ids.hex(20));
    expect(seen.size).toBe(100_000);
  });
});
