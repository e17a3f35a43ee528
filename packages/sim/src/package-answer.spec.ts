import { describe, expect, it } from 'vitest';
import { answerLines, comparePackages, comparisonText } from './compare-packages.ts';
import { validateScenario } from './scenario.ts';
import { smallestAllowance, splitPoints } from './package-answer.ts';
import { completePackage } from '@sdp/core';

const validate = { endpoint: 'core.validate', params: { csdl: 'interaction.content contains "coffee"' } };
// 1,800 cost-5 calls an hour: 9,000 credits demanded every hour.
const demand = { ...validate, schedule: { type: 'steady', rate: 1800, per: 'hour' } };

describe('what to buy', () => {
  it('names the cheapest package that admits everything, by price, with the headroom it leaves', async () => {
    const s = validateScenario({
      duration: '2h',
      packages: {
        small: { credits_per_hour: 5_000, price: 50 },
        standard: { credits_per_hour: 10_000, price: 120 },
        large: { credits_per_hour: 20_000, price: 100 },
      },
      compare: ['small', 'standard', 'large'],
      accounts: [{ username: 'alice' }],
      actors: [demand],
    });
    const c = await comparePackages(s, s.compare, { threads: 1 });
    expect(c.smallestWithoutRefusals).toBe('standard');
    expect(c.answer.cheapest).toEqual({
      name: 'large',
      price: { amount: 100, currency: 'USD', per: 'month' },
      refusals: 0,
      headroom: { peakCredits: 9_000, creditsPerHour: 20_000, peakAnalyzeCredits: 0, analyzeCreditsPerHour: 10_000 },
    });
    expect(c.answer.smallest).toBeNull();
    expect(c.answer.savings.map((x) => [x.name, x.amount, Math.round(x.percent), x.serves])).toEqual([
      ['small', -50, -100, false],
      ['standard', 20, 17, true],
    ]);
    const lines = answerLines(c);
    // One sentence: what to buy, its price with currency and period, and the saving against each other package.
    expect(lines[0]).toBe(
      'Buy large at $100 a month, the cheapest package that admits everything: $20 a month (17 %) less than standard at $120 a month; small at $50 a month costs less but leaves 1,600 refusals.',
    );
    expect(lines).toContain('smallest package with no refusals: standard');
    expect(comparisonText(c)).toContain('$120 a month');
  });

  it("prices in another currency and over a year compare by the month, and the saving is given in the cheapest's terms", async () => {
    const s = validateScenario({
      duration: '1h',
      packages: {
        monthly: { credits_per_hour: 10_000, price: { amount: 1_000, currency: 'EUR', per: 'month' } },
        yearly: { credits_per_hour: 10_000, price: { amount: 9_000, currency: 'EUR', per: 'year' } },
        open: { credits_per_hour: 20_000 },
      },
      compare: ['monthly', 'yearly', 'open'],
      accounts: [{ username: 'alice' }],
      actors: [demand],
    });
    const c = await comparePackages(s, s.compare, { threads: 1 });
    expect(answerLines(c)[0]).toBe('Buy yearly at €9,000 a year, the cheapest package that admits everything: €3,000 a year (25 %) less than monthly at €1,000 a month (€12,000 a year); open has no price.');
  });

  it('with no prices, names the smallest package that admits everything once, not in two lines that say the same', async () => {
    const s = validateScenario({
      duration: '2h',
      packages: { small: { credits_per_hour: 5_000 }, standard: { credits_per_hour: 10_000 }, large: { credits_per_hour: 20_000 } },
      compare: ['small', 'standard', 'large'],
      accounts: [{ username: 'alice' }],
      actors: [demand],
    });
    const c = await comparePackages(s, s.compare, { threads: 1 });
    expect(c.answer.savings).toEqual([]);
    expect(answerLines(c)).toEqual([
      'standard is the smallest package that admits everything; no package compared has a price, so none is named by cost.',
      'headroom under standard: peak 9,000 of 10,000 credits in an hour (90 %), analyze peak 0 of 10,000 (0 %)',
    ]);
  });

  it('within a refusal budget, a package that refuses no more than the budget serves', async () => {
    const s = validateScenario({
      duration: '2h',
      refusal_budget: 3_200,
      packages: { small: { credits_per_hour: 5_000, price: 50 }, standard: { credits_per_hour: 10_000, price: 120 } },
      compare: ['small', 'standard'],
      accounts: [{ username: 'alice' }],
      actors: [demand],
    });
    const c = await comparePackages(s, s.compare, { threads: 1 });
    // Small admits 1,000 of 1,800 calls an hour: 1,600 refusals in two hours.
    expect(c.runs.map((r) => r.refusals)).toEqual([1_600, 0]);
    expect(c.answer.cheapest?.name).toBe('small');
  });

  it('when no listed package serves, finds the smallest allowance that would by search', async () => {
    const s = validateScenario({
      duration: '2h',
      packages: { small: { credits_per_hour: 5_000 }, medium: { credits_per_hour: 6_000 } },
      compare: ['small', 'medium'],
      accounts: [{ username: 'alice' }],
      actors: [demand],
    });
    const c = await comparePackages(s, s.compare, { threads: 1 });
    expect(c.answer.cheapest).toBeNull();
    const found = c.answer.smallest!;
    // 9,000 credits an hour serve exactly; 8,999 leave the 1,800th call of an hour refused.
    expect(found.raised).toEqual([{ figure: 'credits_per_hour', from: 6_000, to: 9_000 }]);
    expect([found.calls, found.admitted, found.refusals]).toEqual([3_600, 3_600, 0]);
    // 6,000 refuses (the comparison's own run, not made again), 12,000 serves; the peak hour's 9,000
    // serves and 8,999 does not: three runs, no bisection left.
    expect(found.probes).toBe(3);
    expect(comparisonText(c)).toContain('smallest allowance that would: credits_per_hour 6,000 -> 9,000; it admits 3,600 of 3,600 calls with 0 refusals');
  });

  it("raises stream_connections when the scenario's stream consumers need more connections than the package allows", async () => {
    // Two consumers, one HTTP stream a hash each (3 and 2 hashes), open together: five connections.
    const reader = (name: string, hashes: number) => ({ name, kind: 'stream', hashes, transport: 'http', schedule: { type: 'once', at: ['0s', '30m'] } });
    const s = validateScenario({
      duration: '1h',
      packages: { small: { credits_per_hour: 5_000, stream_connections: 1 }, medium: { credits_per_hour: 10_000, stream_connections: 2 } },
      compare: ['small', 'medium'],
      accounts: [{ username: 'alice' }],
      actors: [reader('a', 3), reader('b', 2)],
    });
    const c = await comparePackages(s, s.compare, { threads: 1 });
    expect(c.answer.cheapest).toBeNull();
    const found = c.answer.smallest!;
    expect(found.raised).toEqual([{ figure: 'stream_connections', from: 2, to: 5 }]);
    expect(found.refusals).toBe(0);
    expect(comparisonText(c)).toContain('smallest allowance that would: stream_connections 2 -> 5');
  });

  it('on worker threads, with several probes at once, finds the same allowance as one probe at a time', async () => {
    const s = validateScenario({
      duration: '2h',
      packages: { small: { credits_per_hour: 5_000 }, medium: { credits_per_hour: 6_000 } },
      compare: ['small', 'medium'],
      accounts: [{ username: 'alice' }],
      actors: [demand],
    });
    const c = await comparePackages(s, s.compare, { threads: 2 });
    const found = c.answer.smallest!;
    expect(found.raised).toEqual([{ figure: 'credits_per_hour', from: 6_000, to: 9_000 }]);
    expect([found.calls, found.admitted, found.refusals]).toEqual([3_600, 3_600, 0]);
  });

  it('bisecting with three probes a round lands where one probe a round does, whatever the hint', async () => {
    // A stand-in run: refusals until the credits reach 7,777, and a peak hour that points elsewhere.
    let inFlight = 0;
    let rounds = 0;
    const run = async (p: { credits_per_hour: number }) => {
      if (inFlight++ === 0) rounds++;
      await new Promise((r) => setTimeout(r, 1));
      inFlight--;
      return figures(p);
    };
    const figures = (p: { credits_per_hour: number }) => ({
      totals: [{ calls: 10, admitted: p.credits_per_hour >= 7_777 ? 10 : 9, refusedRate: p.credits_per_hour >= 7_777 ? 0 : 1, refusedQueue: 0, refusedStream: 0, refusedConnections: 0 }],
      limitingDays: [],
      hours: [{ credits: { core: 7_000 }, analyzeCredits: 0, refusedRate: p.credits_per_hour >= 7_777 ? 0 : 1, refusedStream: 0, refusedConnections: 0, rateLimitedSeconds: 0, analyzeLimitedSeconds: 0, refusedQueue: 0 }],
    });
    const base = completePackage({ credits_per_hour: 1_000 });
    const s = validateScenario({ duration: '1h', accounts: [{ username: 'alice' }], actors: [demand] });
    const one = await smallestAllowance(s, base, 0, { run: run as never });
    const oneRounds = rounds;
    rounds = 0;
    const three = await smallestAllowance(s, base, 0, { run: run as never, parallel: 3 });
    expect(one!.package.credits_per_hour).toBe(7_777);
    expect(three!.package).toEqual(one!.package);
    expect(rounds).toBeLessThan(oneRounds);
  });

  it('splits a gap into even parts, or tries every figure left when there are few', () => {
    expect(splitPoints(0, 100, 3)).toEqual([25, 50, 75]);
    expect(splitPoints(10, 14, 3)).toEqual([11, 12, 13]);
    expect(splitPoints(10, 12, 3)).toEqual([11]);
    expect(splitPoints(0, 9, 1)).toEqual([4]);
  });
});

