import { ManualClock } from '@sdp/clock';
import { Engine, platformUpcasters } from '@sdp/core';
import { creditsDecider } from '@sdp/core/deciders';
import { MemoryEventStore, Upcasters, replay, seededIds, type NewEvent } from '@sdp/core/kernel';
import { opsPerSecond, type BenchReport } from './lib.ts';

/** Steps for types a balance call never writes: what every read then looks up and passes by. */
const otherTypes = (): Upcasters => {
  const up = platformUpcasters();
  for (const type of ['PackageChanged', 'RecordingStarted', 'TaskQueued', 'PushSubscriptionCreated', 'IdentityCreated']) up.register(type, 1, (d) => d);
  return up;
};

async function callsPerSecond(upcasters: Upcasters | undefined): Promise<number> {
  const clock = new ManualClock(Date.parse('2026-01-01T00:00:00Z'));
  const engine = new Engine({ store: new MemoryEventStore(), clock, ids: seededIds(1), handlers: { 'core.balance': () => ({ body: {} }) }, ...(upcasters ? { upcasters } : {}) });
  await engine.openAccount({ username: 'bench', api_key: 'bench-key-0001', package: { credits_per_hour: 1e12 } });
  const call = { version: '1.5' as const, endpoint: 'core.balance' as const, credentials: { username: 'bench', apiKey: 'bench-key-0001' }, params: {} };
  let bad = 0;
  const rate = await opsPerSecond(async () => {
    if ((await engine.call(call)).status !== 200) bad++;
  });
  if (bad > 0) throw new Error(`event-schema bench: ${bad} calls were not charged 200s`);
  return rate;
}

/** Events per second replayed from a log of `n` charges, written in schema version `written`. */
async function replayRate(n: number, written: number, upcasters: Upcasters | undefined): Promise<number> {
  const store = new MemoryEventStore();
  const streams = 100;
  for (let s = 0; s < streams; s++) {
    const events: NewEvent[] = Array.from({ length: n / streams }, (_, i) => ({
      id: `e${s}-${i}`,
      type: 'CreditsCharged',
      time: 0,
      schemaVersion: written,
      data: written === 1 ? { at: i * 1000, endpoint: 'core.balance', lines: [{ key: 'general', cost: 1 }] } : { at: i * 1000, endpoint: 'core.balance', lines: [{ key: 'general', cost: 1, start: 0 }] },
    }));
    await store.append([{ stream: `credits:u${s}`, expectedVersion: 0, events }]);
  }
  const started = performance.now();
  const report = await replay(store, [{ decider: creditsDecider, prefix: 'credits:' }], upcasters ? { upcasters } : {});
  const seconds = (performance.now() - started) / 1000;
  if (report.events !== n) throw new Error('event-schema bench: replay read the wrong count');
  return n / seconds;
}

/**
 * What reading through the event schema costs: charged calls through an engine whose store is seen
 * through upcasters (as `createEngine` builds it) against one reading its store directly; and a replay
 * of a log whose every event needs a step against the same log already current.
 */
export default async function eventSchemaBench(): Promise<BenchReport[]> {
  // Taken in turn, three rounds, best of each: the first engine would otherwise pay the warm-up.
  let direct = 0;
  let platform = 0;
  let others = 0;
  for (let round = 0; round < 3; round++) {
    direct = Math.max(direct, await callsPerSecond(undefined));
    platform = Math.max(platform, await callsPerSecond(platformUpcasters()));
    others = Math.max(others, await callsPerSecond(otherTypes()));
  }
  const n = 200_000;
  // A step of CreditsCharged from 1 to 2 (v1 lines lacked `start`): each event gets new data.
  const step = new Upcasters().register('CreditsCharged', 1, (d: { at: number; lines: { key: string; cost: number }[] }) => ({ ...d, lines: d.lines.map((l) => ({ ...l, start: 0 })) }));
  const current = await replayRate(n, 2, step);
  const old = await replayRate(n, 1, step);
  return [
    {
      title: 'event schema: charged calls through engine.call, store read through upcasters or not (memory store)',
      baseline: { name: 'engine reading its store directly', opsPerSec: direct },
      subjects: [
        { name: 'through platformUpcasters() (every type at version 1)', opsPerSec: platform },
        { name: 'through upcasters for 5 other types', opsPerSec: others },
      ],
      goal: { text: 'reading through the schema costs under 5% of a call (ratio >= 0.95)', met: Math.min(platform, others) / direct >= 0.95 },
    },
    {
      title: `event schema: replay of ${n.toLocaleString('en')} charges in 100 streams`,
      baseline: { name: 'events already at the current version', opsPerSec: current },
      subjects: [{ name: 'every event one step old (upcast on read)', opsPerSec: old }],
    },
  ];
}
