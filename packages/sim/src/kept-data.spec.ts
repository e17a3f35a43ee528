import { describe, expect, it } from 'vitest';
import { fc, test } from '@fast-check/vitest';
import { RECORDED_TYPE } from '@sdp/core/internal';
import type { EventStore } from '@sdp/core/kernel';
import { runScenario, type SimResult } from './run-scenario.ts';
import { validateScenario } from './scenario.ts';

/**
 * A managed source pushing `perCall` matching interactions every `every`, a recording keeping them, and
 * (`watched`) a client reading the recording's volume each hour.
 */
function pushing(perCall: number, every: string, duration: string, capacity?: number, watched = true) {
  return validateScenario({
    duration,
    packages: capacity === undefined ? {} : { small: { index_capacity_per_month: capacity } },
    accounts: [{ username: 'brand', ...(capacity === undefined ? {} : { package: 'small' }) }],
    actors: [
      {
        name: 'pipeline',
        setup: [
          { as: 'compiled', endpoint: 'insight.compile', params: { csdl: 'fb.content contains "coffee"' } },
          { as: 'rec', endpoint: 'insight.start', params: { hash: '${compiled.body.hash}', name: 'coffee', service: 'facebook' } },
          { as: 'source', endpoint: 'source.create', params: { source_type: 'twitter_gnip', name: 'gnip', resources: '[{"parameters":{"mapping":"gnip_1"}}]' } },
          { as: 'started', endpoint: 'source.start', params: { id: '${source.body.id}' } },
        ],
        endpoint: 'ingest',
        params: { source_id: '${source.body.id}' },
        body: { interactions: perCall, template: { interaction: { content: 'coffee time' }, fb: { content: 'coffee time' } } },
        schedule: { type: 'steady', rate: 1, per: every },
      },
      ...(watched ? [{ name: 'watcher', endpoint: 'insight.get', schedule: { type: 'steady', rate: 1, per: 'hour' } }] : []),
    ],
  });
}

/** Interactions the store holds, in its log and in every stream the run's limiting days name. */
async function interactionsInStore(r: SimResult): Promise<number> {
  const store: EventStore = r.engine.store;
  const items = (events: { data: unknown }[]) => events.reduce((n, e) => n + (((e.data as { items?: unknown[] }).items?.length) ?? 0), 0);
  let n = items(await store.readAll()) + items(await store.readTypes([RECORDED_TYPE]));
  for (const d of r.limitingDays) n += items(await store.readStream(`capacity:${d.account}:${d.day}`));
  return n;
}

const recordingOf = (r: SimResult) => (r.setup.find((s) => s.as === 'rec')!.body as { id: string }).id;

describe('what a simulation keeps of recorded interactions', () => {
  test.prop([fc.integer({ min: 1, max: 60 }), fc.integer({ min: 5, max: 150 }), fc.constantFrom(undefined, 0)], { numRuns: 12 })(
    'each recorded interaction is held once, by the recording index, whatever their number: the store keeps none of them, only the counts',
    async (perCall, minutes, capacity) => {
      const r = await runScenario(pushing(perCall, 'minute', `${minutes}m`, capacity));
      expect(r.notes).toEqual([]);
      const recorded = r.limitingDays.reduce((n, d) => n + d.used, 0);
      const refused = r.limitingDays.reduce((n, d) => n + d.refused, 0);
      // The counts are kept: every interaction pushed was recorded or refused.
      expect(recorded + refused).toBe(perCall * minutes);
      expect(await interactionsInStore(r)).toBe(0);
      expect(r.engine.recordingIndex.recording(recordingOf(r))?.size ?? 0).toBe(recorded);
    },
  );

  for (const watched of [true, false]) {
    it(`over 40 days the index holds at most the retention (32 days) and a day more, ${watched ? 'read each hour' : 'never read'}: the rest of the run is gone`, async () => {
      const r = await runScenario(pushing(3, 'hour', '40d', undefined, watched));
      const recorded = r.limitingDays.reduce((n, d) => n + d.used, 0);
      expect(recorded).toBe(3 * 24 * 40);
      expect(await interactionsInStore(r)).toBe(0);
      const held = r.engine.recordingIndex.recording(recordingOf(r))!.size;
      expect(held).toBeLessThanOrEqual(3 * 24 * 33);
      expect(held).toBeGreaterThanOrEqual(3 * 24 * 32);
    }, 60_000);
  }
});
