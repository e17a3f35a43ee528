import { describe, expect, it } from 'vitest';
import { fc, test } from '@fast-check/vitest';
import { RECORDED_TYPE } from '@sdp/core/internal';
import { InteractionsNotKept } from '@sdp/core';
import { MemoryEventStore, type EventStore } from '@sdp/core/kernel';
import { runScenario, type SimResult } from './run-scenario.ts';
import { validateScenario } from './scenario.ts';

/**
 * A managed source pushing `perCall` matching interactions every `every`, a recording keeping them, and
 * (`watched`) a client reading the recording's volume each hour.
 */
function pushing(perCall: number, every: string, duration: string, capacity?: number, watched = true, analysedFrom?: string) {
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
      ...(analysedFrom
        ? [
            {
              name: 'analyst',
              start: analysedFrom,
              setup: [
                { as: 'compiled', endpoint: 'insight.compile', params: { csdl: 'fb.content contains "time"' } },
                { as: 'rec', endpoint: 'insight.start', params: { hash: '${compiled.body.hash}', name: 'time', service: 'facebook' } },
              ],
              endpoint: 'insight.analyze',
              params: { id: '${rec.body.id}', parameters: { analysis_type: 'freqDist', parameters: { target: 'fb.author.age', threshold: 5 } } },
              schedule: { type: 'steady', rate: 2, per: 'hour' },
            },
          ]
        : []),
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
      const set = r.engine.recordingIndex.recording(recordingOf(r));
      expect(set?.size ?? 0).toBe(recorded);
      // Nothing of the scenario reads an interaction, so the index counts them and keeps none.
      if (set) expect(() => set.docs).toThrow(InteractionsNotKept);
    },
  );

  it('a scenario that reads recorded interactions (an analysis from the third hour) runs again with them kept: its figures are those of a store that keeps everything', async () => {
    const scenario = pushing(20, 'minute', '5h', undefined, true, '2h');
    const progress: number[] = [];
    const r = await runScenario(scenario, { progress: (done) => progress.push(done) });
    // Two hours of the first run (the third ends it, unreported), then the five of the second.
    expect(progress).toEqual([0.2, 0.4, 0.2, 0.4, 0.6, 0.8, 1]);
    const keeping = await runScenario(scenario, { store: new MemoryEventStore() });
    expect(r.notes).toEqual([]);
    // From the third hour the analyses are answered, none of them a failure of the first, counting run.
    expect(r.hours.map((h) => Object.keys(h.statuses))).toEqual(Array(5).fill(['200']).map((k, i) => (i === 0 ? ['200', '201'] : k)));
    expect(r.totals[0]!.calls).toBe(keeping.totals[0]!.calls);
    expect(r.hours[2]!.calls).toBeGreaterThan(r.hours[1]!.calls);
    expect(r.hours).toEqual(keeping.hours);
    expect(r.totals).toEqual(keeping.totals);
    expect(r.limitingDays).toEqual(keeping.limitingDays);
    const set = r.engine.recordingIndex.recording(recordingOf(r))!;
    expect(set.docs).toHaveLength(set.size);
    expect(await interactionsInStore(r)).toBe(0);
  });

  it('a scenario that reads them in its first hour keeps them from the start and runs once', async () => {
    const scenario = pushing(20, 'minute', '3h', undefined, true, '10m');
    const progress: number[] = [];
    const r = await runScenario(scenario, { progress: (done) => progress.push(done) });
    expect(progress).toEqual([1 / 3, 2 / 3, 1]);
    const keeping = await runScenario(scenario, { store: new MemoryEventStore() });
    expect(r.hours).toEqual(keeping.hours);
    expect(r.hours[0]!.statuses[500]).toBeUndefined();
    const set = r.engine.recordingIndex.recording(recordingOf(r))!;
    expect(set.docs).toHaveLength(set.size);
  });

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
