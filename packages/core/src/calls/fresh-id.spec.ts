import { describe, expect, it } from 'vitest';
import { freshId } from './fresh-id.ts';
import { seededIds } from '../kernel/ports.ts';

describe('freshId', () => {
  it('skips ids already taken and keeps drawing from the same source', () => {
    const drawn = seededIds(9);
    const first = [drawn.hex(20), drawn.hex(20), drawn.hex(20)];
    const taken = new Set(first.slice(0, 2));
    expect(freshId(seededIds(9), 20, (id) => taken.has(id))).toBe(first[2]);
  });

  it('answers the first draw when nothing is taken', () => {
    expect(freshId(seededIds(4), 32, () => false)).toBe(seededIds(4).hex(32));
  });
});
