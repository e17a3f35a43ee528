import { expect, it } from 'vitest';
import { MemoryEventStore } from '@sdp/core/kernel';
import { readGuardRace } from './read-guard-race.ts';

it('two engines on one memory store: package changes, denials, identity limits and deleted queries racing the calls that read them never leave a decision taken on a stale state', async () => {
  const statuses: Record<number, number> = {};
  let subscriptions = 0;
  for (const seed of [7, 11, 23]) {
    const report = await readGuardRace(new MemoryEventStore(), { seed });
    expect(report.stale).toEqual([]);
    expect(report.charges).toBeGreaterThan(20);
    subscriptions += report.subscriptions;
    for (const [status, n] of Object.entries(report.statuses)) statuses[Number(status)] = (statuses[Number(status)] ?? 0) + n;
  }
  // The race did happen: calls were charged, and refused for a denial, over a limit or a deleted query.
  expect(subscriptions).toBeGreaterThan(0);
  expect(statuses[200]).toBeGreaterThan(0);
  expect((statuses[403] ?? 0) + (statuses[404] ?? 0) + (statuses[429] ?? 0)).toBeGreaterThan(0);
});
