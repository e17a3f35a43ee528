import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { daysCsv, hoursCsv } from './report-data.ts';
import { runScenario } from './run-scenario.ts';
import { parseScenario } from './scenario.ts';

const file = (path: string) => readFileSync(fileURLToPath(new URL(path, import.meta.url)), 'utf8');

/**
 * Work on the simulator's speed must not change what it reports. The agency's first 27 hours (every kind
 * of actor: bursts with back-off, the daily curve, analyses, tasks, the firehose into three recordings, a
 * stream consumer reconnecting each minute; past 25 hours, so the stream's usage is pruned; two limiting
 * days) under its standard package, pinned as the reports' CSV. A change to a rule in the core that
 * changes these figures on purpose rewrites the two files in `packages/sim/test/fixtures/` in the same commit.
 */
describe('the agency week, pinned', () => {
  it('its first 27 hours under standard give the hours.csv and days.csv pinned in test/fixtures/, byte for byte', async () => {
    const text = file('../../../examples/agency-week.yaml').replace(/^duration: .*$/m, 'duration: 27h');
    const scenario = parseScenario(text, 'agency-week.yaml');
    const r = await runScenario(scenario, { packageOverride: { name: 'standard', fields: scenario.packages.standard! } });
    expect(r.notes).toEqual([]);
    expect(hoursCsv(r.hours)).toBe(file('../test/fixtures/agency-week-27h-standard.hours.csv'));
    expect(daysCsv(r)).toBe(file('../test/fixtures/agency-week-27h-standard.days.csv'));
  }, 120_000);
});
