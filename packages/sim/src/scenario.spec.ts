import { describe, expect, it } from 'vitest';
import { fc, test } from '@fast-check/vitest';
import { ScenarioError, parseScenario, validateScenario } from './scenario.ts';
import { formatDuration, parseDuration } from './duration.ts';

const issuesOf = (text: string): string[] => {
  try {
    parseScenario(text);
  } catch (error) {
    if (error instanceof ScenarioError) return error.issues.map((i) => `${i.path}: ${i.message}`);
    throw error;
  }
  throw new Error('expected the scenario to be refused');
};

const minimal = {
  duration: '3h',
  accounts: [{ username: 'alice' }],
  actors: [{ endpoint: 'core.validate', schedule: { type: 'steady', rate: 1 } }],
};

describe('scenario files', () => {
  it('reads YAML and JSON alike, with defaults for what is left out', () => {
    const fromJson = parseScenario(JSON.stringify(minimal));
    const fromYaml = parseScenario('duration: 3h\naccounts: [{username: alice}]\nactors:\n  - endpoint: core.validate\n    schedule: {type: steady, rate: 1}\n');
    expect(fromYaml).toEqual(fromJson);
    expect(fromJson).toMatchObject({ duration: 3 * 3_600_000, version: '1.5', limitingDay: 'pst', compare: [] });
    expect(fromJson.actors[0]).toMatchObject({ kind: 'calls', account: 'alice', schedule: { type: 'steady', interval: 1000 }, start: 0, stop: 3 * 3_600_000 });
  });

  it('names the path of every bad field, not only the first', () => {
    const issues = issuesOf(`
duration: 2h
accounts:
  - username: alice
    package: { credits_per_hour: -5 }
  - username: bob
    package: premium
actors:
  - { account: alice, endpoint: core.validate, schedule: { type: steady, rate: 1 } }
  - { account: bob, endpoint: core.nothing, schedule: { type: steady, rate: 1 } }
  - { account: alice, endpoint: core.validate, schedule: { type: steady, rate: 0 } }
  - { account: carol, endpoint: core.validate, schedule: { type: burst, size: 10, every: 1m, spacing: 10s } }
  - { account: alice, endpoint: core.validate, schedule: { type: daily, hourly: [1, 2] }, retry: { backoff: sometimes } }
`);
    expect(issues).toEqual([
      'accounts[0].package.credits_per_hour: must be a whole number from 0 to 1000000000000',
      'accounts[1].package: names no package; packages are default',
      'actors[1].endpoint: no endpoint core.nothing in the catalogue (ids look like core.validate, tasks.create, ingest)',
      'actors[2].schedule.rate: must be a positive number',
      'actors[3].account: names no account; accounts are alice, bob',
      'actors[3].schedule.spacing: a burst must fit in its period (size × spacing ≤ every)',
      'actors[4].schedule.hourly: must list 24 figures, the calls in each hour of the day',
      'actors[4].retry.backoff: must be exponential or reset',
    ]);
  });

  it("refuses the catalogue's internal endpoints as a call actor's, saying whose they are", () => {
    const actor = (endpoint: string) => JSON.stringify({ ...minimal, actors: [{ endpoint, schedule: { type: 'steady', rate: 1 } }] });
    expect(issuesOf(actor('stream.open'))).toEqual(["actors[0].endpoint: stream.open is one of the stream's actions: use a stream actor (kind: stream)"]);
    expect(issuesOf(actor('stream.charge'))).toEqual(["actors[0].endpoint: stream.charge is the operator's, not a client's: a stream actor (kind: stream) is charged for its subscriptions"]);
  });

  it('refuses unknown fields, so a typo does not silently keep a default', () => {
    expect(issuesOf(JSON.stringify({ ...minimal, durration: '1h' }))).toEqual(['durration: is not a field here; fields are name, start, duration, seed, version, limiting_day, packages, compare, refusal_budget, accounts, actors']);
    expect(issuesOf(JSON.stringify({ ...minimal, actors: [{ endpoint: 'core.validate', schedule: { rate: 2, pre: 'hour' } }] }))).toEqual([
      'actors[0].schedule.pre: is not a field here; fields are type, rate, per',
    ]);
  });

  it('says what is missing and what cannot be read', () => {
    expect(issuesOf('name: x')).toEqual(['duration: is required', 'accounts: is required', 'actors: is required']);
    expect(issuesOf('duration: [')).toEqual([expect.stringMatching(/^\(file\): not valid YAML or JSON/)]);
    expect(issuesOf(JSON.stringify({ ...minimal, duration: 'soon', version: '2.0', compare: ['gold'] }))).toEqual([
      'duration: must be a duration such as 500ms, 30s, 15m, 3h, 7d, 2w or 1mo',
      'version: must be one of 1.0, 1.1, 1.2, 1.3, 1.4, 1.5',
      'compare[0]: names no package; packages are default',
    ]);
  });

  it('checks package fields with the core reader an operator meets', () => {
    expect(issuesOf(JSON.stringify({ ...minimal, packages: { tiny: { credits: 5 } } }))).toEqual([
      expect.stringMatching(/^packages\.tiny: has no field credits; fields are credits_per_hour/),
    ]);
    const s = validateScenario({ ...minimal, packages: { tiny: { credits_per_hour: 500 } }, accounts: [{ username: 'alice', package: 'tiny' }] });
    expect(s.accounts[0]).toMatchObject({ packageName: 'tiny', package: { credits_per_hour: 500 } });
  });
});

describe('durations', () => {
  it('reads the units scenario files use', () => {
    expect(parseDuration('500ms')).toBe(500);
    expect(parseDuration('90s')).toBe(90_000);
    expect(parseDuration('1h30m')).toBe(5_400_000);
    expect(parseDuration('2w')).toBe(14 * 86_400_000);
    expect(parseDuration('1mo')).toBe(30 * 86_400_000);
    expect(parseDuration(45)).toBe(45_000);
    expect(parseDuration('three hours')).toBeUndefined();
    expect(parseDuration(-1)).toBeUndefined();
  });

  test.prop([fc.integer({ min: 0, max: 400 * 86_400 }).map((s) => s * 1000)])('a formatted duration reads back to itself', (ms) => {
    expect(parseDuration(formatDuration(ms))).toBe(ms);
  });
});
