import { describe, expect, it } from 'vitest';
import { limitingDayZone, offsetLabel, zoneNameAt } from './limiting-days.ts';
import { summaryText } from './report-table.ts';
import { runScenario } from './run-scenario.ts';
import { validateScenario } from './scenario.ts';

const at = (iso: string) => Date.parse(iso);
const scenario = (limitingDay: string) =>
  validateScenario({
    start: '2026-07-06T07:00:00Z',
    duration: '2h',
    limiting_day: limitingDay,
    accounts: [{ username: 'alice', package: { index_capacity_per_month: 45_000_000 } }],
    actors: [{ endpoint: 'core.validate', params: { csdl: 'interaction.content contains "coffee"' }, schedule: { type: 'steady', rate: 1, per: 'hour' } }],
  });

describe("the limiting day's zone, named with its offset", () => {
  it('reads PDT in a Los Angeles summer and PST in its winter; pst days are UTC-08:00 in July too', () => {
    const la = limitingDayZone('america-los-angeles');
    expect([zoneNameAt(la, at('2026-07-06T12:00:00Z')), offsetLabel(la, at('2026-07-06T12:00:00Z'))]).toEqual(['PDT', 'UTC-07:00']);
    expect([zoneNameAt(la, at('2026-01-06T12:00:00Z')), offsetLabel(la, at('2026-01-06T12:00:00Z'))]).toEqual(['PST', 'UTC-08:00']);
    const pst = limitingDayZone('pst');
    expect([zoneNameAt(pst, at('2026-07-06T12:00:00Z')), offsetLabel(pst, at('2026-07-06T12:00:00Z'))]).toEqual(['PST', 'UTC-08:00']);
  });

  it("heads the terminal summary in the tables' zone, named, rather than in UTC", async () => {
    const pst = summaryText(await runScenario(scenario('pst')));
    expect(pst.split('\n')[0]).toMatch(/^scenario: 2026-07-05 23:00 to 2026-07-06 01:00 PST \(UTC-08:00\) \(2h/);
    const la = summaryText(await runScenario(scenario('america-los-angeles')));
    expect(la.split('\n')[0]).toMatch(/^scenario: 2026-07-06 00:00 to 2026-07-06 02:00 PDT \(UTC-07:00\) \(2h/);
  });
});
