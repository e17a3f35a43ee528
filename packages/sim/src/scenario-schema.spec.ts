import { describe, expect, it } from 'vitest';
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { ScenarioError, parseScenario, validateScenario } from './scenario.ts';
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

describe("a package's price", () => {
  const file = (packages: Record<string, unknown>) => ({ duration: '1h', packages, accounts: [{ username: 'alice' }], actors: [{ endpoint: 'core.validate', params: { csdl: 'fb.content contains "tea"' }, schedule: { type: 'steady', rate: 1 } }] });
  const issues = (packages: Record<string, unknown>) => {
    try {
      validateScenario(file(packages));
      return [];
    } catch (error) {
      if (!(error instanceof ScenarioError)) throw error;
      return error.issues.map((i) => `${i.path}: ${i.message}`);
    }
  };

  it('is a plain number in US dollars a month, or an amount with its currency and period', () => {
    const s = validateScenario(file({ a: { price: 600 }, b: { price: { amount: 7_200, per: 'year' } }, c: { price: { amount: 650.5, currency: 'USD', per: 'month' } } }));
    expect(s.prices).toEqual({
      a: { amount: 600, currency: 'USD', per: 'month' },
      b: { amount: 7_200, currency: 'USD', per: 'year' },
      c: { amount: 650.5, currency: 'USD', per: 'month' },
    });
    // The price is the buyer's figure: the core never reads it.
    expect(s.packages.a).toEqual({});
  });

  it('refuses what is not a price, each problem at its path', () => {
    expect(issues({ a: { price: -1 } })).toEqual(['packages.a.price: must be an amount, 0 or more']);
    expect(issues({ a: { price: 'cheap' } })).toEqual(['packages.a.price: must be an amount (USD a month) or {amount, currency, per}']);
    expect(issues({ a: { price: { currency: 'EUR' } } })).toEqual(['packages.a.price.amount: is required']);
    expect(issues({ a: { price: { amount: 5, currency: 'usd', per: 'week' } } })).toEqual([
      'packages.a.price.currency: must be an ISO 4217 currency code in capitals, such as USD, EUR or GBP',
      'packages.a.price.per: must be month or year',
    ]);
    expect(issues({ a: { price: { amount: 5, currency: 'XYZ' } } })).toEqual(['packages.a.price.currency: is not an ISO 4217 currency code; codes are such as USD, EUR or GBP']);
    expect(issues({ a: { price: { amount: 5, cost: 3 } } })).toEqual(['packages.a.price.cost: is not a field here; fields are amount, currency, per']);
  });

  it('refuses prices in different currencies, which cannot be compared', () => {
    expect(issues({ a: { price: { amount: 5, currency: 'EUR' } }, b: { price: 5 }, c: { price: { amount: 5, currency: 'GBP' } } })).toEqual([
      'packages.b.price: must be in EUR, the currency of the package a: prices in different currencies cannot be compared',
      'packages.c.price.currency: must be in EUR, the currency of the package a: prices in different currencies cannot be compared',
    ]);
  });

  it('the JSON Schema takes both forms and refuses a bad currency code', async () => {
    const validate = new Ajv2020({ allErrors: true, strict: false }).compile(await printedSchema());
    const ok = (price: unknown) => validate(JSON.parse(JSON.stringify(file({ a: { price } }))));
    expect([ok(600), ok({ amount: 600, currency: 'USD', per: 'month' }), ok({ amount: 600, currency: 'usd' }), ok({ amount: 600, per: 'week' }), ok(-1)]).toEqual([true, true, false, false, false]);
  });
});
