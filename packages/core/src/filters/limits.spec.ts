import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { BadRequest } from '../calls/errors.ts';
import { compileFilter, type FilterKind } from './compiled-filter.ts';
import { utf8Length } from '../calls/utf8.ts';
import { FILTER_LIMITS } from './limits.ts';

function outcome(text: string, kind: FilterKind = 'definition'): 'accepted' | BadRequest {
  try {
    compileFilter(text, { kind });
    return 'accepted';
  } catch (e) {
    if (e instanceof BadRequest) return e;
    throw e;
  }
}

/** `n` logical operators: n + 1 conditions joined by a random mix of AND and OR. */
function joined(n: number, ops: boolean[]): string {
  const parts = ['fb.content contains "c0"'];
  for (let k = 1; k <= n; k++) parts.push(`${ops[k % ops.length] ? 'and' : 'or'} fb.author.age == "a${k}"`);
  return parts.join(' ');
}

const around = (limit: number, spread: number) => fc.oneof(fc.constantFrom(limit - 1, limit, limit + 1), fc.integer({ min: Math.max(0, limit - spread), max: limit + spread }));

describe('definition limits (docs/contract.md#filter-and-analysis-limits)', () => {
  test.prop([around(999, 60), fc.array(fc.boolean(), { minLength: 1, maxLength: 9 })], { numRuns: 25 })(
    'a definition with at most 999 logical operators is accepted; from the 1,000th it is refused naming the limit',
    (n, ops) => {
      const r = outcome(joined(n, ops));
      if (n <= FILTER_LIMITS.logicalOperators) expect(r).toBe('accepted');
      else {
        expect(r).toBeInstanceOf(BadRequest);
        expect((r as BadRequest).message).toMatch(/^Logical operator limit: .* at most 999 .* uses \d+$/);
        expect((r as BadRequest).extra).toEqual({ limit: 'logical operators' });
      }
    },
  );

  it('1,000 conditions joined by OR are allowed; 1,001 are not', () => {
    const ors = (n: number) => Array.from({ length: n }, (_, k) => `fb.content contains "w${k}"`).join(' OR ');
    expect(outcome(ors(1000))).toBe('accepted');
    expect(outcome(ors(1001))).toBeInstanceOf(BadRequest);
  });

  test.prop([around(999, 20), fc.integer({ min: 0, max: 100 })], { numRuns: 15 })(
    'logical operators are counted over the whole definition: tag bodies and the return block together',
    (n, percentInTag) => {
      const inTag = Math.floor((n * percentInTag) / 100);
      const text = `tag "t" { ${joined(inTag, [true])} } return { ${joined(n - inTag, [false])} }`;
      expect(outcome(text) === 'accepted').toBe(n <= 999);
    },
  );

  test.prop([fc.constantFrom(9_999, 10_000, 10_001, 10_002)], { numRuns: 4 })(
    'a definition with at most 10,000 tag rules is accepted; 10,001 is refused naming the limit',
    (n) => {
      const rules = Array.from({ length: n }, (_, k) => (k % 3 === 2 ? `tag.b.c${k % 7} ${k % 5} { fb.type exists }` : `tag "t${k}" { fb.type exists }`));
      const r = outcome(`${rules.join('\n')}\nreturn { fb.content exists }`);
      if (n <= FILTER_LIMITS.tags) expect(r).toBe('accepted');
      else {
        expect((r as BadRequest).message).toMatch(/^Tag limit: .* at most 10000 tag or scoring rules/);
        expect((r as BadRequest).extra).toEqual({ limit: 'tags' });
      }
    },
  );

  test.prop([fc.integer({ min: -4, max: 4 }), fc.boolean()], { numRuns: 20 })(
    'a definition of at most 1 MB of text is accepted; one byte more is refused naming the limit',
    (delta, multibyte) => {
      const head = 'fb.content contains "x" // ';
      const target = FILTER_LIMITS.textBytes + delta;
      // Pad with two-byte characters where asked, so bytes and characters differ.
      let pad = multibyte ? 'é'.repeat(Math.floor((target - head.length) / 2)) : '';
      pad += 'a'.repeat(target - head.length - utf8Length(pad));
      const text = head + pad;
      expect(utf8Length(text)).toBe(target);
      const r = outcome(text);
      if (target <= FILTER_LIMITS.textBytes) expect(r).toBe('accepted');
      else {
        expect((r as BadRequest).message).toMatch(/^Filter size limit: .* at most 1 MB/);
        expect((r as BadRequest).extra).toEqual({ limit: 'text size' });
      }
    },
  );

  it('nesting deeper than 1,000 brackets is refused as the original engine refused it', () => {
    const nest = (d: number) => `${'('.repeat(d)}fb.type exists${')'.repeat(d)}`;
    expect(outcome(nest(1000))).toBe('accepted');
    expect((outcome(nest(1001)) as BadRequest).message).toMatch(/maximum recursion depth of 1000 has been reached \(at line 1 position 1000\)/);
  });

  it('geo_polygon takes at most 32 vertices', () => {
    const poly = (n: number) => `interaction.geo geo_polygon "${Array.from({ length: n }, (_, k) => `${k % 80},${k}`).join(':')}"`;
    expect(outcome(poly(32))).toBe('accepted');
    expect((outcome(poly(33)) as BadRequest).message).toMatch(/^geo_polygon limit: at most 32 vertices/);
  });
});

describe('analysis query filter limits (docs/contract.md#filter-and-analysis-limits: 30 logical operators, each condition at most 100 arguments)', () => {
  test.prop([around(30, 15), fc.array(fc.boolean(), { minLength: 1, maxLength: 5 })], { numRuns: 30 })(
    'a query filter with at most 30 logical operators is accepted; 31 are refused naming the limit',
    (n, ops) => {
      const r = outcome(joined(n, ops), 'query');
      if (n <= FILTER_LIMITS.queryLogicalOperators) expect(r).toBe('accepted');
      else {
        expect((r as BadRequest).message).toMatch(/^Query filter limit: .* at most 30 logical operators/);
        expect((r as BadRequest).extra).toEqual({ limit: 'query logical operators' });
      }
    },
  );

  test.prop([around(100, 30), fc.constantFrom('contains_any', 'in', 'ints', 'contains_all', 'wildcard')], { numRuns: 30 })(
    'a query filter condition with at most 100 arguments is accepted; 101 are refused naming the limit',
    (n, op) => {
      const text =
        op === 'ints'
          ? `fb.topic_ids in [${Array.from({ length: n }, (_, k) => k).join(',')}]`
          : `fb.content ${op} "${Array.from({ length: n }, (_, k) => `w${k}`).join(',')}"`;
      const r = outcome(text, 'query');
      if (n <= FILTER_LIMITS.queryArguments) expect(r).toBe('accepted');
      else {
        expect((r as BadRequest).message).toMatch(/^Query filter limit: each condition .* at most 100 arguments; one has \d+$/);
        expect((r as BadRequest).extra).toEqual({ limit: 'query arguments' });
      }
    },
  );

  it('the same texts are fine as definitions: the query limits apply to query filters only', () => {
    expect(outcome(joined(31, [true]))).toBe('accepted');
    expect(outcome(`fb.content contains_any "${Array.from({ length: 101 }, (_, k) => `w${k}`).join(',')}"`)).toBe('accepted');
  });

  it('a query filter takes conditions only, and no operator the query filter lacks', () => {
    expect((outcome('tag "x" { fb.type exists } return { fb.type exists }', 'query') as BadRequest).message).toMatch(/conditions only/);
    expect((outcome('fb.content substr "x"', 'query') as BadRequest).message).toMatch(/substr operator is not available in a query filter/);
    expect((outcome('fb.content cs contains "x"', 'query') as BadRequest).message).toMatch(/cs modifier is not available/);
    expect(outcome('interaction.tag_tree.cars.brand == "BMW" and interaction.tags in "a,b"', 'query')).toBe('accepted');
    expect((outcome('fb.topics.website exists', 'query') as BadRequest).message).toMatch(/cannot be used in a query filter/);
    expect((outcome('interaction.sample < 10', 'query') as BadRequest).message).toMatch(/cannot be used in a query filter/);
    expect(outcome('fb.topics.website exists and interaction.sample < 10')).toBe('accepted');
  });
});
