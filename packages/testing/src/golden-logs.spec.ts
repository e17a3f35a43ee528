import { describe, expect, it } from 'vitest';
import { PLATFORM_EVENT_TYPES } from '@sdp/core';
import { MemoryEventStore } from '@sdp/core/kernel';
import { runGoldenSession } from '../test/golden/golden-session.ts';
import { goldenLogs } from './golden-logs.ts';

describe('golden logs', () => {
  it('hold every event type the platform writes (a new type needs a golden log of the version that adds it)', () => {
    const kept = new Set(goldenLogs().flatMap((log) => log.events.map((e) => e.type)));
    expect(PLATFORM_EVENT_TYPES.filter((type) => !kept.has(type))).toEqual([]);
  });

  it('the scripted session still goes as written and makes every event type, so the next version can write its log', async () => {
    const store = new MemoryEventStore();
    const { surprises } = await runGoldenSession(store);
    expect(surprises).toEqual([]);
    const written = new Set((await store.readAll()).map((e) => e.type));
    expect(PLATFORM_EVENT_TYPES.filter((type) => !written.has(type))).toEqual([]);
  });
});
