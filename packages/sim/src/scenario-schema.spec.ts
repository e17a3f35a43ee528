import { describe, expect, it } from 'vitest';
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { ScenarioError, parseScenario } from './scenario.ts';
import { simMain } from './sim-cli.ts';

const examples = fileURLToPath(new URL('../../../examples/', import.meta.url));

/** The schema as `sdp sim --schema` prints it. */
async function printedSchema(): Promise<Record<string, unknown>> {
  const out: string[] = [];
  expect(await simMain(['sim', '--schema'], { out: (s) => out.push(s), err: () => {}, tty: false })).toBe(0);
  return JSON.parse(out.join('\n'));
}

/** ajv's instance path (`/actors/2/schedule/rate`) written as the CLI writes paths (`actors[2].schedule.rate`). */
const cliPath = (pointer: string) => pointer.split('/').slice(1).reduce((s, p) => (/^\d+$/.test(p) ? `${s}[${p}]` : s ? `${s}.${p}` : p), '');

describe('the scenario JSON Schema', () => {
  it('accepts every file in examples/', async () => {
    const validate = new Ajv2020({ allErrors: true, strict: false }).compile(await printedSchema());
    const files = readdirSync(examples).filter((f) => /\.ya?ml$/.test(f));
    expect(files.length).toBeGreaterThan(2);
    for (const f of files) {
      const doc = JSON.parse(JSON.stringify(parseYaml(readFileSync(examples + f, 'utf8'))));
      expect({ f, ok: validate(doc), errors: validate.errors ?? null }).toEqual({ f, ok: true, errors: null });
    }
  });

  it('refuses a broken file at the same field path the CLI names', async () => {
    const validate = new Ajv2020({ allErrors: true, strict: false }).compile(await printedSchema());
    const text = readFileSync(examples + 'agency-week.yaml', 'utf8').replace('per_minute: 60', 'per_minute: -60');
    const doc = JSON.parse(JSON.stringify(parseYaml(text)));
    expect(validate(doc)).toBe(false);
    let cli: string[] = [];
    try {
      parseScenario(text);
    } catch (error) {
      if (!(error instanceof ScenarioError)) throw error;
      cli = error.issues.map((i) => i.path);
    }
    expect(cli).toEqual(['actors[1].per_minute']);
    expect(validate.errors!.map((e) => cliPath(e.instancePath))).toContain('actors[1].per_minute');
  });
});
