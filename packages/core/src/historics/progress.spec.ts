import { describe, expect } from 'vitest';
import { fc, test } from '@fast-check/vitest';
import { QUEUE_MS, timelineNextProgress, timelineProgress, timelineStatus, type Timeline } from './progress.ts';

const activeTimeline = fc.record({
  phase: fc.constant('active' as const),
  workMs: fc.integer({ min: 0, max: 200_000 }),
  activeSince: fc.integer({ min: 0, max: 1_000_000 }),
  runMs: fc.integer({ min: 60_000, max: 10_000_000 }),
});

describe('timelineNextProgress', () => {
  test.prop([activeTimeline, fc.integer({ min: 0, max: 20_000_000 })])(
    'names the first instant after now when the percent done moves; before it, it stays',
    (t: Timeline, sinceActive) => {
      const now = t.activeSince! + sinceActive;
      const next = timelineNextProgress(t, now);
      if (timelineStatus(t, now) === 'succeeded') return void expect(next).toBeNull();
      expect(next).not.toBeNull();
      expect(next!).toBeGreaterThan(now);
      expect(timelineProgress(t, next! - 1)).toBe(timelineProgress(t, now));
      expect(timelineProgress(t, next!) > timelineProgress(t, now) || timelineStatus(t, next!) === 'succeeded').toBe(true);
    },
  );

  test.prop([fc.constantFrom('init' as const, 'paused' as const, 'stopped' as const, 'succeeded' as const, 'failed' as const)])('is null for a query that does not run', (phase) => {
    expect(timelineNextProgress({ phase, workMs: QUEUE_MS, activeSince: null, runMs: 60_000 }, 0)).toBeNull();
  });
});
