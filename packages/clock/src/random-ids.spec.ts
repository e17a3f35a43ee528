import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { randomIds } from './random-ids.ts';

describe('randomIds', () => {
  test.prop([fc.array(fc.integer({ min: 1, max: 300 }), { minLength: 1, maxLength: 600 })])('every id has the length asked for and only lowercase hex digits, across draws and pool refills, longer than a draw included', (lengths) => {
    const ids = randomIds();
    for (const n of lengths) expect(ids.hex(n)).toMatch(new RegExp(`^[0-9a-f]{${n}}$`));
  });

  it('never repeats a 32-digit id in 100,000 draws, and spreads digits evenly', () => {
    const ids = randomIds();
    const seen = new Set<string>();
    const counts = new Map<string, number>();
    for (let i = 0; i < 100_000; i++) {
      const id = ids.hex(32);
      seen.add(id);
      for (const d of id) counts.set(d, (counts.get(d) ?? 0) + 1);
    }
    expect(seen.size).toBe(100_000);
    expect(counts.size).toBe(16);
    // 3.2 million digits: each of 16 expected 200,000 times; 1 % off is far beyond chance (sd ≈ 433).
    for (const n of counts.values()) expect(Math.abs(n - 200_000)).toBeLessThan(2_000);
  });

  it('refuses a length it cannot give', () => {
    expect(() => randomIds().hex(0)).toThrow(RangeError);
    expect(() => randomIds().hex(2.5)).toThrow(RangeError);
  });
});
