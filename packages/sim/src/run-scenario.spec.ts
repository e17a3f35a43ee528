import { describe, expect, it } from 'vitest';
import { fc, test } from '@fast-check/vitest';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { runScenario } from './run-scenario.ts';
import { comparePackages } from './compare-packages.ts';
import { validateScenario } from './scenario.ts';
import { hoursCsv } from './report-data.ts';
import { parseScenario } from './scenario.ts';
import { MemoryEventStore, seededIds } from '@sdp/core/kernel';
import { createEngine } from '@sdp/core';

const iso = (ms: number) => new Date(ms).toISOString();
const validate = { endpoint: 'core.validate', params: { csdl: 'interaction.content contains "coffee"' } };
const everySecond = { type: 'steady', rate: 1, per: 'second' };

describe('scenarios worked out by hand', () => {
  it('cost-5 calls every second for 3 hours on 10,000 credits: 2,000 admitted and 1,600 refused each hour, resets on the hour', async () => {
    const text = readFileSync(fileURLToPath(new URL('../../../examples/steady-validate.yaml', import.meta.url)), 'utf8');
    const r = await runScenario(parseScenario(text));
    expect(r.notes).toEqual([]);
    expect(r.hours.map((h) => [h.calls, h.admitted, h.refusedRate, h.credits.core, h.rateLimitedSeconds, h.remainingEnd])).toEqual([
      // The 2,001st call (08:33:20) finds 0 < 5 credits; the account waits 1,600 s for the 09:00:00 reset.
      [3600, 2000, 1600, 10_000, 1600, 0],
      [3600, 2000, 1600, 10_000, 1600, 0],
      [3600, 2000, 1600, 10_000, 1600, 0],
    ]);
    expect(r.hours.map((h) => h.statuses)).toEqual(Array(3).fill({ 200: 2000, 429: 1600 }));
    expect(r.totals[0]!.resetTimes.map(iso)).toEqual(['2026-01-05T09:00:00.000Z', '2026-01-05T10:00:00.000Z']);
    expect(hoursCsv(r.hours).split('\n')[1]).toBe('0,2026-01-05T08:00:00.000Z,alice,3600,2000,1600,0,0,0,0,0,1600,0,0,0,0,0,0,0,0,0,10000,2000,1600');
  });

  it('a first call at 8:05:37 opens a window that resets at 9:05:00, the minute mark, and every hour on', async () => {
    const s = validateScenario({ start: '2026-01-05T08:05:37Z', duration: '3h', accounts: [{ username: 'alice' }], actors: [{ ...validate, schedule: everySecond }] });
    const r = await runScenario(s);
    const t = r.totals[0]!;
    expect(t.resetTimes.map(iso)).toEqual(['2026-01-05T09:05:00.000Z', '2026-01-05T10:05:00.000Z', '2026-01-05T11:05:00.000Z']);
    // Windows [08:05, 09:05) 3,563 calls, [09:05, 10:05) and [10:05, 11:05) 3,600 each: 2,000 admitted in each;
    // the 37 calls from 11:05:00 to 11:05:36 open a fourth window and are all admitted.
    expect(t.calls).toBe(10_800);
    expect(t.admitted).toBe(3 * 2000 + 37);
    expect(t.refusedRate).toBe(1563 + 1600 + 1600);
    expect(t.credits).toEqual({ core: (3 * 2000 + 37) * 5 });
  });

  it('refuses before v1.2 with 403 and from v1.2 with 429, and counts both as rate refusals', async () => {
    const s = validateScenario({
      duration: '1h',
      accounts: [{ username: 'old' }, { username: 'new' }],
      actors: [
        { ...validate, account: 'old', version: '1.1', schedule: everySecond },
        { ...validate, account: 'new', version: '1.2', schedule: everySecond },
      ],
    });
    const r = await runScenario(s);
    expect(r.totals.map((t) => [t.account, t.admitted, t.refusedRate, t.statuses])).toEqual([
      ['old', 2000, 1600, { 200: 2000, 403: 1600 }],
      ['new', 2000, 1600, { 200: 2000, 429: 1600 }],
    ]);
  });

  it('a stream consumer reconnecting each minute to 40 hashes shares the general allowance through the real stream gate: 5 credits a subscription, the unpayable ones refused', async () => {
    const s = validateScenario({ duration: '2h', accounts: [{ username: 'alice' }], actors: [{ kind: 'stream', hashes: 40, schedule: { type: 'steady', rate: 1, per: 'minute' } }] });
    const store = new MemoryEventStore();
    const r = await runScenario(s, { store });
    // Hour 1: 40 compiles (200 credits) at the start, then 49 reconnects paid in full (9,800), 11 × 40 subscribes refused;
    // hour 2: 50 reconnects (10,000), 10 × 40 refused.
    expect(r.hours.map((h) => [h.credits.core ?? 0, h.credits.stream, h.refusedStream])).toEqual([
      [200, 9_800, 440],
      [0, 10_000, 400],
    ]);
    expect(r.totals[0]!.streamCharges).toBe(120 * 40);
    expect(r.notes).toEqual([]);
    // Every reconnect is a connection of the real stream, closed by the next one or at the actor's stop.
    const types = (await store.readTypes(['StreamConnected', 'StreamSubscribed', 'StreamDisconnected'])).map((e) => e.type);
    expect(types.filter((t) => t === 'StreamConnected')).toHaveLength(120);
    expect(types.filter((t) => t === 'StreamDisconnected')).toHaveLength(120);
    expect(types.filter((t) => t === 'StreamSubscribed')).toHaveLength(120 * 40 - 440 - 400);
  });

  it('the deprecated cost: 5N of a stream actor is read as hashes: N, and a cost that is no multiple of 5 is refused naming the new fields', async () => {
    const actor = (fields: Record<string, unknown>) => validateScenario({ duration: '1h', accounts: [{ username: 'alice' }], actors: [{ kind: 'stream', schedule: { type: 'steady', rate: 1, per: 'minute' }, ...fields }] });
    const [byCost, byHashes] = await Promise.all([runScenario(actor({ cost: 200 })), runScenario(actor({ hashes: 40 }))]);
    expect(byCost.hours).toEqual(byHashes.hours);
    expect(() => actor({ cost: 12 })).toThrow(/actors\[0\]\.cost: is deprecated and read as hashes: cost \/ 5 .* write hashes: N or filters: \[CSDL, \.\.\.\] instead/);
    expect(() => actor({})).toThrow(/actors\[0\]\.hashes: is required \(or filters, a list of CSDL\)/);
    expect(() => actor({ hashes: 2, filters: ['fb.content contains "x"'] })).toThrow(/actors\[0\]\.hashes: cannot be given with filters|actors\[0\]\.filters: cannot be given with hashes/);
    expect(() => actor({ hashes: 5001 })).toThrow(/actors\[0\]\.hashes: must be at most 5000/);
  });

  it.each(['websocket', 'http', 'http-multi'] as const)("a stream consumer's seconds subscribed and the firehose's interactions delivered to it show in /usage as the real stream's do (%s)", async (transport) => {
    const csdl = 'fb.content contains_any "coffee, tea, espresso"';
    const s = validateScenario({
      duration: '2h',
      accounts: [{ username: 'alice' }],
      actors: [
        { name: 'reader', kind: 'stream', filters: [csdl], transport, schedule: { type: 'once', at: ['0s', '1h'] }, stop: '90m' },
        { name: 'firehose', kind: 'firehose', per_minute: 30, every: '1m' },
      ],
    });
    const store = new MemoryEventStore();
    const r = await runScenario(s, { store });
    expect(r.notes).toEqual([]);
    const matched = (await store.readTypes(['StreamInteractionsMatched'])).reduce((n, e) => n + (e.data as { items: unknown[] }).items.length, 0);
    expect(matched).toBeGreaterThan(0);
    const engine = createEngine({ store, clock: { now: () => s.start + s.duration }, ids: seededIds(1) });
    const usage = await engine.call({ version: '1.5', endpoint: 'core.usage', credentials: { username: 'alice', apiKey: s.accounts[0]!.apiKey }, params: { period: 'day' } });
    const streams = (usage.body as { streams: Record<string, { seconds: number; licenses: Record<string, number> }> }).streams;
    const [hash, u] = Object.entries(streams)[0]!;
    expect(Object.keys(streams)).toEqual([hash]);
    // Subscribed from the start to the reconnect at 1h, then again until its stop at 90m (closed at its last millisecond).
    expect(u!.seconds).toBe(90 * 60 - 1);
    expect(u!.licenses.interaction).toBe(matched);
    const opened = (await store.readTypes(['StreamConnected'])).map((e) => (e.data as { transport: string }).transport);
    expect(opened).toEqual(transport === 'websocket' ? ['websocket', 'websocket'] : ['http', 'http']);
  });

  it('an HTTP stream a hash takes a connection a hash: past the package\'s stream_connections they are refused, and count as refusals', async () => {
    const scenario = (transport: string) =>
      validateScenario({
        duration: '1h',
        accounts: [{ username: 'alice', package: { stream_connections: 2 } }],
        actors: [{ name: 'reader', kind: 'stream', hashes: 3, transport, schedule: { type: 'once', at: ['0s'] } }],
      });
    const r = await runScenario(scenario('http'));
    expect(r.totals[0]!.refusedConnections).toBe(1);
    expect(r.hours[0]!.refusedConnections).toBe(1);
    expect(r.notes).toEqual([expect.stringMatching(/reader: the stream was refused: Your package allows 2 stream connections/)]);
    // One GET /multi?hashes= holds the three.
    expect((await runScenario(scenario('http-multi'))).totals[0]!.refusedConnections).toBe(0);
    expect(() => scenario('carrier-pigeon')).toThrow(/actors\[0\]\.transport: must be websocket, http, http-multi/);
  });



  it('a client that waits out X-RateLimit-Reset-Ttl gets its refused call in one second after the reset', async () => {
    const s = validateScenario({
      duration: '2h',
      accounts: [{ username: 'alice' }],
      actors: [{ ...validate, schedule: { type: 'burst', size: 2001, every: '2h', spacing: '1s' }, retry: { backoff: 'reset', base: '1s' } }],
    });
    const r = await runScenario(s);
    const t = r.totals[0]!;
    expect([t.calls, t.admitted, t.refusedRate, t.retries, t.gaveUp]).toEqual([2002, 2001, 1, 1, 0]);
    expect(r.hours[0]!.rateLimitedSeconds).toBe(1600);
    expect(r.hours[1]!.credits.core).toBe(5);
    expect(t.resetTimes.map(iso)).toEqual(['2026-01-05T09:00:00.000Z']);
  });

  it('exponential back-off gives up after its attempts and says so', async () => {
    const s = validateScenario({
      duration: '1h',
      accounts: [{ username: 'alice', package: { credits_per_hour: 5 } }],
      actors: [{ ...validate, schedule: { type: 'once', at: ['0s', '1s'] }, retry: { max_attempts: 3, base: '10s', factor: 3 } }],
    });
    const r = await runScenario(s);
    const t = r.totals[0]!;
    // The second call is refused at 0:01, retried at 0:11 and 0:41, then abandoned.
    expect([t.calls, t.admitted, t.refusedRate, t.retries, t.gaveUp]).toEqual([4, 1, 3, 2, 1]);
  });

  it('lists every limiting day the run covers, starting 00:00 PST (08:00 UTC), with the daily account limit', async () => {
    const s = validateScenario({ start: '2026-01-05T07:00:00Z', duration: '2d', accounts: [{ username: 'alice', package: { index_capacity_per_month: 45_000_000 } }], actors: [{ ...validate, schedule: { type: 'steady', rate: 1, per: 'hour' } }] });
    const r = await runScenario(s);
    expect(r.limitingDays.map((d) => [d.day, d.start, d.limit])).toEqual([
      ['2026-01-04', '2026-01-04T08:00:00.000Z', 2_000_000],
      ['2026-01-05', '2026-01-05T08:00:00.000Z', 2_000_000],
      ['2026-01-06', '2026-01-06T08:00:00.000Z', 2_000_000],
    ]);
  });
});

describe('task queues between answers', () => {
  it('samples the slots each minute from the read model: a burst of 8 tasks of 22.5 s drains 6, 3, then none', async () => {
    const s = validateScenario({
      duration: '10m',
      accounts: [{ username: 'alice' }],
      actors: [
        {
          endpoint: 'tasks.create',
          setup: [
            { as: 'compiled', endpoint: 'insight.compile', params: { csdl: 'fb.content contains "tea"' } },
            { as: 'rec', endpoint: 'insight.start', params: { hash: '${compiled.body.hash}', name: 'tea', service: 'facebook' } },
          ],
          params: {
            service: 'facebook',
            type: 'analysis',
            name: 'ages ${n}',
            subscription_id: '${rec.body.id}',
            parameters: { parameters: { analysis_type: 'freqDist', parameters: { target: 'fb.author.age', threshold: 5 } } },
          },
          schedule: { type: 'burst', size: 8, every: '1d', spacing: '1s' },
        },
      ],
    });
    const r = await runScenario(s);
    expect(r.totals[0]!.statuses).toEqual({ 200: 2, 202: 8 }); // the setup's compile and start, then the tasks
    // One slot: the k-th task finishes at 22.5 s × k, so at 1:00 six are left (67.5 s … 180 s), at 2:00 three.
    expect(Array.from(r.series['alice']!.queued.slice(1, 5))).toEqual([6, 3, 0, 0]);
  });
});

describe('what a run keeps', () => {
  it('forgetting charges and hearing events as they are stored gives the figures of reading a store that keeps everything', async () => {
    // Six hours of agency-week: calls, retries, stream charges, the firehose, analyses and tasks.
    const text = readFileSync(fileURLToPath(new URL('../../../examples/agency-week.yaml', import.meta.url)), 'utf8').replace('duration: 7d', 'duration: 6h');
    const scenario = parseScenario(text);
    const lean = await runScenario(scenario);
    const keeping = await runScenario(scenario, { store: new MemoryEventStore() });
    expect(lean.totals[0]!.calls).toBeGreaterThan(1_500);
    expect(lean.limitingDays.reduce((n, d) => n + d.used, 0)).toBeGreaterThan(0);
    expect(lean.hours).toEqual(keeping.hours);
    expect(lean.totals).toEqual(keeping.totals);
    expect(lean.limitingDays).toEqual(keeping.limitingDays);
    expect(lean.series).toEqual(keeping.series);
    // The lean store's log holds the analysis charges only (what `/account/usage` lists); the other keeps all.
    const charges = (events: { type: string; stream: string; data: unknown }[], endpoint?: string) =>
      events.filter((e) => e.type === 'CreditsCharged' && e.stream.startsWith('credits:') && (!endpoint || (e.data as { endpoint: string }).endpoint === endpoint)).length;
    const kept = await keeping.engine.store.readAll();
    expect(charges(kept)).toBeGreaterThan(charges(kept, 'insight.analyze') + 1_000);
    expect(charges(await lean.engine.store.readAll())).toBe(charges(kept, 'insight.analyze'));
  });
});

describe('comparing packages', () => {
  it('finds the smallest package with no refusals, whatever order they are listed in', async () => {
    const s = validateScenario({
      duration: '2h',
      packages: { large: { credits_per_hour: 20_000 }, small: { credits_per_hour: 5_000 }, standard: { credits_per_hour: 10_000 } },
      compare: ['large', 'small', 'standard'],
      accounts: [{ username: 'alice' }],
      // 1,800 cost-5 calls an hour: 9,000 credits.
      actors: [{ ...validate, schedule: { type: 'steady', rate: 1800, per: 'hour' } }],
    });
    const c = await comparePackages(s, s.compare);
    expect(c.runs.map((r) => [r.name, r.result.totals[0]!.admitted, r.refusals])).toEqual([
      ['large', 3600, 0],
      ['small', 2000, 1600],
      ['standard', 3600, 0],
    ]);
    expect(c.smallestWithoutRefusals).toBe('standard');
  });
});

describe('the simulator against arithmetic', () => {
  // Rates whose interval is a whole number of milliseconds, so exactly that many calls land in each clock hour.
  const WHOLE = [60, 90, 100, 120, 144, 150, 180, 200, 225, 240, 300, 360, 400, 450, 480, 600, 720, 800, 900, 1200, 1440, 1800, 2400, 3600];
  test.prop([fc.constantFrom(...WHOLE), fc.integer({ min: 0, max: 400 }), fc.constantFrom(1, 2, 3)], { numRuns: 12 })(
    'steady calls on the hour: each hour admits min(calls, credits / 5) and refuses the rest, nothing more',
    async (perHour, fives, hours) => {
      const credits = fives * 5;
      const s = validateScenario({
        start: '2026-01-05T08:00:00Z',
        duration: `${hours}h`,
        accounts: [{ username: 'alice', package: { credits_per_hour: credits } }],
        actors: [{ ...validate, schedule: { type: 'steady', rate: perHour, per: 'hour' } }],
      });
      const r = await runScenario(s);
      const admitted = Math.min(perHour, fives);
      expect(r.hours.map((h) => [h.calls, h.admitted, h.refusedRate, h.credits.core ?? 0])).toEqual(Array(hours).fill([perHour, admitted, perHour - admitted, admitted * 5]));
    },
  );
});
