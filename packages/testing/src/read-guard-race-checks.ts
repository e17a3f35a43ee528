import { expect } from 'vitest';
import type { ReadGuardRaceReport } from './read-guard-race.ts';

/**
 * What a `readGuardRace` over two connections to one database must show: no decision taken on a stale
 * state, and that the race did happen (calls charged, and refused for a denial or over a limit).
 */
export function expectRaceHeldOverConnections(report: ReadGuardRaceReport): void {
  expect(report.stale).toEqual([]);
  expect(report.charges).toBeGreaterThan(5);
  expect(report.statuses[200]).toBeGreaterThan(0);
  expect((report.statuses[403] ?? 0) + (report.statuses[429] ?? 0)).toBeGreaterThan(0);
}
