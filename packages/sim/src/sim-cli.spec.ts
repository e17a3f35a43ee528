import { describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawnSync } from 'node:child_process';
import { simMain } from './sim-cli.ts';
import { parseScenario } from './scenario.ts';
import { runScenario } from './run-scenario.ts';

const example = (name: string) => fileURLToPath(new URL(`../../../examples/${name}`, import.meta.url));

async function sim(args: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await simMain(args, { out: (s) => out.push(s), err: (s) => err.push(s), tty: false });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

function inTmp<T>(fn: (dir: string) => Promise<T>): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), 'sdp-sim-'));
  return fn(dir).finally(() => rmSync(dir, { recursive: true, force: true }));
}

describe('sdp sim', () => {
  it('runs a scenario file, prints the summary and writes JSON, CSV and HTML', () =>
    inTmp(async (dir) => {
      const r = await sim(['sim', example('steady-validate.yaml'), '--out', dir]);
      expect(r.code).toBe(0);
      expect(r.out).toMatch(/alice\s+basic\s+10,000\s+10,800\s+6,000\s+4,800/);
      expect(r.out).toContain('alice: credits by group: core 30,000');
      expect(readdirSync(dir).sort()).toEqual(['days.csv', 'hours.csv', 'hours.json', 'report.html']);
      const json = JSON.parse(readFileSync(join(dir, 'hours.json'), 'utf8'));
      expect(json.hours).toHaveLength(3);
      expect(json.totals[0].resetTimes).toEqual(['2026-01-05T09:00:00.000Z', '2026-01-05T10:00:00.000Z']);
      expect(readFileSync(join(dir, 'hours.csv'), 'utf8').trim().split('\n')).toHaveLength(4);
      expect(readFileSync(join(dir, 'report.html'), 'utf8')).toContain('<svg id="chart-credits"');
    }));

  it('--duration runs the file for another span: steady-validate for one hour instead of three', () =>
    inTmp(async (dir) => {
      const r = await sim([example('steady-validate.yaml'), '--duration', '1h', '--out', dir, '--quiet']);
      expect(r.code).toBe(0);
      expect(JSON.parse(readFileSync(join(dir, 'hours.json'), 'utf8')).hours).toHaveLength(1);
      const bad = await sim([example('steady-validate.yaml'), '--duration', 'soon']);
      expect(bad.code).toBe(2);
      expect(bad.err).toMatch(/duration: /);
      expect((await sim([example('steady-validate.yaml'), '--duration'])).err).toContain('--duration needs a span of time');
      expect(parseScenario('duration: 7d\naccounts: [{username: a}]\nactors: [{endpoint: core.validate, schedule: {type: steady, rate: 1}}]\n', 'x', { duration: '4w' })).toMatchObject({
        duration: 28 * 86_400_000,
        actors: [{ stop: 28 * 86_400_000 }],
      });
    }));

  it('compares packages named on the command line and names the smallest with no refusals', () =>
    inTmp(async (dir) => {
      const file = join(dir, 'scenario.yaml');
      writeFileSync(
        file,
        `name: compare me
duration: 2h
packages:
  tiny: { credits_per_hour: 1000 }
  big: { credits_per_hour: 50000 }
  medium: { credits_per_hour: 20000 }
accounts: [{ username: alice, package: tiny }]
actors:
  - { endpoint: core.validate, params: { csdl: 'fb.content contains "x"' }, schedule: { type: steady, rate: 3000, per: hour } }
`,
      );
      const r = await sim([file, '--compare', 'big,tiny,medium', '--out', join(dir, 'out')]);
      expect(r.code).toBe(0);
      // No prices: the answer names the smallest package that admits everything, once.
      expect(r.out).toContain('medium is the smallest package that admits everything; no package compared has a price, so none is named by cost.');
      expect(r.out).not.toContain('smallest package with no refusals');
      expect(readdirSync(join(dir, 'out')).sort()).toEqual(['big', 'compare.html', 'compare.json', 'medium', 'tiny']);
      const c = JSON.parse(readFileSync(join(dir, 'out', 'compare.json'), 'utf8'));
      expect(c.runs.map((x: { name: string; refusals: number }) => [x.name, x.refusals])).toEqual([
        ['big', 0],
        ['tiny', 5600],
        ['medium', 0],
      ]);
    }));

  it('answers 2 with every bad field named, and 2 for bad usage', () =>
    inTmp(async (dir) => {
      const file = join(dir, 'bad.yaml');
      writeFileSync(file, 'duration: 1h\naccounts: [{username: a}]\nactors:\n  - {endpoint: core.validate, schedule: {type: steady, rate: -1}}\n');
      const bad = await sim([file]);
      expect(bad).toMatchObject({ code: 2, out: '' });
      expect(bad.err).toContain('actors[0].schedule.rate: must be a positive number');
      expect((await sim([])).code).toBe(2);
      expect((await sim([file, '--frobnicate'])).err).toContain('unknown option --frobnicate');
      expect((await sim([file, '--out'])).err).toContain('--out needs a directory');
      expect((await sim([file, '--compare', '--quiet'])).err).toContain('--compare needs a list of package names');
      expect(await sim([file, 'other.yaml'])).toMatchObject({ code: 2, err: expect.stringContaining(`one scenario file at a time (got ${file} and other.yaml)`) });
      expect((await sim([example('steady-validate.yaml'), '--compare', 'gold'])).err).toContain('no package named gold');
      expect((await sim(['--help'])).out).toContain('usage: sdp sim');
    }));

  it('every example scenario is valid', () => {
    const dir = fileURLToPath(new URL('../../../examples/', import.meta.url));
    for (const f of readdirSync(dir).filter((x) => x.endsWith('.yaml') || x.endsWith('.json'))) {
      expect(() => parseScenario(readFileSync(join(dir, f), 'utf8'), f)).not.toThrow();
    }
  });

  it('a managed source pushing 500 matching interactions a minute: the recording keeps 30,000 an hour', async () => {
    const s = parseScenario(readFileSync(example('managed-source.yaml'), 'utf8').replace('duration: 1d', 'duration: 2h'));
    const r = await runScenario(s);
    expect(r.setup.map((x) => [x.as, x.status])).toEqual([
      ['compiled', 200],
      ['rec', 200],
      ['source', 201],
      ['started', 200],
      ['compiled', 200],
    ]);
    expect(r.totals[0]!.statuses).toEqual({ 200: 120 + 8 + 4, 201: 1 });
    expect(r.limitingDays.map((d) => [d.day, d.used, d.refused])).toEqual([['2026-01-05', 60_000, 0]]);
  });
});

describe('progress', () => {
  const cli = fileURLToPath(new URL('./cli.ts', import.meta.url));
  const run = (args: string[]) => {
    const r = spawnSync(process.execPath, ['--import', 'tsx', cli, ...args], { encoding: 'utf8', env: { ...process.env, CI: '1' } });
    return { code: r.status, out: r.stdout, err: r.stderr.split('\n').filter((l) => l && !/npm warn/.test(l)) };
  };

  it('piped, each package says how far it got and when it ended, as plain lines', () =>
    inTmp(async (dir) => {
      const lines: string[] = [];
      const r = await simMain([example('steady-validate.yaml'), '--compare', 'default', '--out', dir], {
        out: () => {},
        err: (s) => lines.push(s),
        tty: false,
        progressEveryMs: 0,
      });
      expect(r).toBe(0);
      expect(lines.some((l) => /^sim: default \(1\/1\) \d+% after [\d.]+s/.test(l))).toBe(true);
      expect(lines.filter((l) => /^sim: default \(1\/1\) done in [\d.]+s/.test(l))).toHaveLength(1);
      expect(lines.every((l) => !l.includes('\r'))).toBe(true);
    }));

  it('a real process with its output piped writes a line per package end on stderr; --quiet writes nothing', () =>
    inTmp(async (dir) => {
      const loud = run([example('steady-validate.yaml'), '--out', join(dir, 'a')]);
      expect(loud.code).toBe(0);
      expect(loud.err).toEqual([expect.stringMatching(/^sim: steady validate \(1\/1\) done in [\d.]+s/)]);
      const quiet = run([example('steady-validate.yaml'), '--out', join(dir, 'b'), '--quiet']);
      expect(quiet.code).toBe(0);
      expect([quiet.out, quiet.err]).toEqual(['', []]);
      expect(readdirSync(join(dir, 'b'))).toContain('report.html');
    }));
});
