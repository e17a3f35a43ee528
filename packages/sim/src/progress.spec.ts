import { afterEach, expect, it, vi } from 'vitest';
import { progressFor } from './progress.ts';

afterEach(() => vi.restoreAllMocks());

it('says how long is left only once a pace has been seen, never "about 0.0s left"', () => {
  let now = 0;
  vi.spyOn(performance, 'now').mockImplementation(() => now);
  const lines: string[] = [];
  const p = progressFor(['a'], { err: (l) => lines.push(l), tty: false, everyMs: 1000 });
  // First heard of well after the start and already some way in (it waited for a thread).
  now = 5000;
  p.update('a', 0.3);
  now = 7000;
  p.update('a', 0.5);
  expect(lines).toEqual(['sim: a (1/1) 30% after 0.0s', 'sim: a (1/1) 50% after 2.0s, about 5.0s left']);
  now = 8000;
  p.update('a', 1);
  expect(lines.at(-1)).toBe('sim: a (1/1) done in 3.0s (8.0s since the start)');
});
