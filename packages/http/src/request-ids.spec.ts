import { describe, expect, it } from 'vitest';
import { requestId } from './request-ids.ts';

describe('request ids', () => {
  it('are 32 lowercase hex digits, all different over several batches', () => {
    const ids = Array.from({ length: 1000 }, requestId);
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{32}$/);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('use every hex digit in every position (random bits, not a counter or a fixed pattern)', () => {
    const ids = Array.from({ length: 2000 }, requestId);
    for (let position = 0; position < 32; position++) expect(new Set(ids.map((id) => id[position])).size).toBe(16);
  });
});
