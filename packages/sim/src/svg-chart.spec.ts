import { describe, expect, it } from 'vitest';
import { limitingDayZone } from './limiting-days.ts';
import { timeTicks } from './svg-chart.ts';
import { validateScenario } from './scenario.ts';
import { comparePackages } from './compare-packages.ts';
import { compareHtml } from './report-compare-html.ts';

const PST = limitingDayZone('pst');
const at = (iso: string) => Date.parse(iso);

describe('time ticks', () => {
  it('over a day or less, show hours in the zone, the first and each midnight with the date', () => {
    // 2026-01-05 06:00 UTC is 01-04 22:00 PST; a day on, 01-05 22:00 PST: every third hour of the zone.
    const ticks = timeTicks(at('2026-01-05T06:00:00Z'), at('2026-01-06T06:00:00Z'), PST);
    expect(ticks.map((t) => t.label)).toEqual(['01-05 00:00', '03:00', '06:00', '09:00', '12:00', '15:00', '18:00', '21:00']);
    // Each tick at its instant: 00:00 PST is 08:00 UTC.
    expect(new Date(ticks[0]!.at).toISOString()).toBe('2026-01-05T08:00:00.000Z');
    // From 18:00 PST over midnight: the date again where the day changes.
    expect(timeTicks(at('2026-01-06T02:00:00Z'), at('2026-01-06T14:00:00Z'), PST).map((t) => t.label)).toEqual(['01-05 18:00', '21:00', '01-06 00:00', '03:00', '06:00']);
  });

  it('over six hours, every hour of the zone', () => {
    const ticks = timeTicks(at('2026-01-05T16:00:00Z'), at('2026-01-05T22:00:00Z'), PST);
    expect(ticks.map((t) => t.label)).toEqual(['01-05 08:00', '09:00', '10:00', '11:00', '12:00', '13:00', '14:00']);
  });

  it('under five days, hours with each date; from five days, dates alone', () => {
    const fourDays = timeTicks(at('2026-01-05T08:00:00Z'), at('2026-01-09T08:00:00Z'), PST).map((t) => t.label);
    expect(fourDays.slice(0, 3)).toEqual(['01-05 00:00', '01-05 12:00', '01-06 00:00']);
    expect(timeTicks(at('2026-01-05T08:00:00Z'), at('2026-01-07T08:00:00Z'), PST).map((t) => t.label).slice(0, 2)).toEqual(['01-05 00:00', '01-05 06:00']);
    expect(timeTicks(at('2026-01-05T08:00:00Z'), at('2026-01-10T08:00:00Z'), PST).map((t) => t.label)).toEqual(['01-05', '01-06', '01-07', '01-08', '01-09', '01-10']);
  });

  it('in America/Los_Angeles, ticks stay on the wall clock across the change to daylight time', () => {
    // 2026-03-08: 02:00 PST becomes 03:00 PDT; the day's midnights are 08:00 UTC before, 07:00 UTC after.
    const LA = limitingDayZone('america-los-angeles');
    const ticks = timeTicks(at('2026-03-07T08:00:00Z'), at('2026-03-10T07:00:00Z'), LA);
    const midnights = ticks.filter((t) => t.label.endsWith('00:00')).map((t) => new Date(t.at).toISOString().slice(5, 16));
    expect(midnights).toEqual(['03-07T08:00', '03-08T08:00', '03-09T07:00', '03-10T07:00']);
  });

  it("over a week, the zone's midnights as dates", () => {
    const ticks = timeTicks(at('2026-01-05T08:00:00Z'), at('2026-01-12T08:00:00Z'), PST);
    expect(ticks.map((t) => t.label)).toEqual(['01-05', '01-06', '01-07', '01-08', '01-09', '01-10', '01-11', '01-12']);
    expect(ticks.every((t) => new Date(t.at).toISOString().slice(11, 16) === '08:00')).toBe(true);
  });
});

describe('the comparison chart', () => {
  it("reads times in the limiting day's zone, named on the chart, with UTC on hover", async () => {
    const s = validateScenario({
      start: '2026-01-05T06:00:00Z',
      duration: '2h',
      packages: { small: { credits_per_hour: 5_000, price: 50 }, large: { credits_per_hour: 20_000, price: 100 } },
      compare: ['small', 'large'],
      accounts: [{ username: 'alice' }],
      actors: [{ endpoint: 'core.validate', params: { csdl: 'fb.content contains "tea"' }, schedule: { type: 'steady', rate: 1800, per: 'hour' } }],
    });
    const c = await comparePackages(s, s.compare, { threads: 1 });
    const html = compareHtml(c, (name) => `${name}/report.html`);
    expect(html).toContain("times PST, the limiting day's zone (hover a time for UTC)");
    expect(html).not.toContain('times UTC');
    // The first tick is 22:00 PST the evening before, dated; its hover is the UTC instant.
    expect(html).toContain('<title>2026-01-05 06:00 UTC</title>01-04 22:00</text>');
    expect(html).toContain('<title>2026-01-05 07:00 UTC</title>23:00</text>');
    // Tooltips name the zone and give UTC beside it.
    expect(html).toMatch(/<title>large, 01-04 22:00 PST \(2026-01-05 06:00 UTC\): [\d,]+ credits remaining<\/title>/);
    expect(html).toContain('$50 a month');
  });
});
