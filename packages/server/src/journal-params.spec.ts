import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BUDGET_SLACK, MASK, shownParams } from './journal-params.ts';

/** JSON's length but for escapes: the measure the budget is kept in. */
function size(v: unknown): number {
  if (typeof v === 'string') return v.length + 2;
  if (Array.isArray(v)) return 2 + v.reduce((n: number, item) => n + size(item), 0) + Math.max(0, v.length - 1);
  if (v !== null && typeof v === 'object') {
    const keys = Object.keys(v);
    return 2 + keys.reduce((n, k) => n + k.length + 3 + size((v as Record<string, unknown>)[k]), 0) + Math.max(0, keys.length - 1);
  }
  return String(v).length;
}

const credentialKeys = ['api_key', 'apikey', 'password', 'secret_key', 'access_key', 'auth', 'token', 'Authorization'];
const keys = fc.oneof(fc.constantFrom(...credentialKeys, 'csdl', 'hash', 'username'), fc.string({ maxLength: 40 }));
const params = fc.dictionary(keys, fc.jsonValue({ maxDepth: 4 }), { maxKeys: 30 });

/** Every value under a credential key, at any depth. */
function shownCredentials(v: unknown, out: unknown[] = []): unknown[] {
  if (Array.isArray(v)) for (const item of v) shownCredentials(item, out);
  else if (v !== null && typeof v === 'object') {
    for (const [k, x] of Object.entries(v)) {
      if (credentialKeys.includes(k)) out.push(x);
      else shownCredentials(x, out);
    }
  }
  return out;
}

describe('shownParams: a call\'s parameters as the journal lists them', () => {
  it('never shows more than its budget, past it by at most one literal', () => {
    fc.assert(
      fc.property(params, fc.integer({ min: 0, max: 3000 }), (p, budget) => {
        expect(size(shownParams(p, budget).params)).toBeLessThanOrEqual(budget + BUDGET_SLACK);
      }),
    );
  });

  it('never shows a credential, at any depth', () => {
    fc.assert(
      fc.property(params, (p) => {
        expect(shownCredentials(shownParams({ outer: p, ...p }, 100_000).params).every((v) => v === MASK)).toBe(true);
      }),
    );
  });

  it('shows whatever fits whole, and says when something did not', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string({ maxLength: 20 }).filter((k) => !credentialKeys.includes(k) && !/key|pass|secret|token|auth|credential/i.test(k)), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 10 }), fc.integer({ min: 0, max: 600 }), (p, budget) => {
        const shown = shownParams(p, budget);
        const plain = JSON.parse(JSON.stringify(p));
        if (!shown.cut) expect(JSON.parse(JSON.stringify(shown.params))).toEqual(plain);
        else expect(size(plain)).toBeGreaterThan(budget - 2);
      }),
    );
  });

  it('keeps a key named __proto__ as a key, and cuts a long text to the room left', () => {
    const shown = shownParams(JSON.parse('{"__proto__": {"polluted": true}, "csdl": "' + 'x'.repeat(5000) + '"}'), 100);
    expect(Object.keys(shown.params)).toEqual(['__proto__', 'csdl']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(shown.cut).toBe(true);
    expect((shown.params.csdl as string).length).toBeLessThan(100);
  });
});
