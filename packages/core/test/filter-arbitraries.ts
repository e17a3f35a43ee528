import { fc } from '@fast-check/vitest';
import type { Argument, Condition, Definition, Expr, Operator, Switch, TagRule } from '../src/filters/ast.ts';
import { CASE_OPERATORS } from '../src/filters/parser.ts';

/**
 * Generators of well-formed filter trees in the parser's normal form (n-ary groups never directly hold
 * a group of the same operator), for round-trip and hash properties.
 */
const TARGETS = ['interaction.content', 'fb.content', 'fb.author.age', 'fb.author.gender', 'fb.topics.name', 'links.domain', 'fb.parent.content', 'twitter.text'];
const itemChar = fc.constantFrom(...'abcXYZ019 ,-\'"éß_!'.split(''));
const item = fc.string({ unit: itemChar, minLength: 1, maxLength: 8 }).map((s) => s.trim()).filter((s) => s.length > 0);
const word = fc.string({ unit: fc.constantFrom(...'abcxyz019é'.split('')), minLength: 1, maxLength: 6 });
const coordinate = (max: number) => fc.integer({ min: -max * 10_000, max: max * 10_000 }).map((x) => (x === 0 ? 0 : x / 10_000));
const point = fc.tuple(coordinate(90), coordinate(180));
const plainNumber = fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e12, max: 1e12 }).map((n) => (n === 0 ? 0 : n));
const hash = fc.string({ unit: fc.constantFrom(...'0123456789abcdef'.split('')), minLength: 32, maxLength: 32 });

function argumentFor(op: Operator): fc.Arbitrary<Argument | null> {
  switch (op) {
    case 'exists':
      return fc.constant(null);
    case 'contains':
    case 'substr':
      return fc.string({ minLength: 1, maxLength: 12 }).map((value) => ({ kind: 'string' as const, value }));
    case 'regex_partial':
    case 'regex_exact':
      return fc.constantFrom('^a+$', '\\d{2,4}', '([a-z0-9_\\.-]+)@([\\da-z\\.-]+)', 'colou?r').map((value) => ({ kind: 'string' as const, value }));
    case 'contains_any':
    case 'contains_all':
    case 'url_in':
      return fc.array(item, { minLength: 1, maxLength: 5 }).map((items) => ({ kind: 'list' as const, items }));
    case 'wildcard':
      return fc.array(word.map((w) => `${w}*`), { minLength: 1, maxLength: 4 }).map((items) => ({ kind: 'list' as const, items }));
    case 'in':
      return fc.oneof(
        fc.array(item, { minLength: 1, maxLength: 5 }).map((items) => ({ kind: 'list' as const, items })),
        fc.array(fc.integer({ min: -1e9, max: 1e12 }), { minLength: 1, maxLength: 5 }).map((values) => ({ kind: 'ints' as const, values })),
      );
    case 'contains_near':
      return fc
        .record({ words: fc.array(word, { minLength: 2, maxLength: 4 }), distance: fc.integer({ min: 1, max: 500 }) })
        .map((a) => ({ kind: 'near' as const, ...a }));
    case '==':
    case '!=':
      return fc.oneof(
        plainNumber.map((value) => ({ kind: 'number' as const, value })),
        fc.string({ maxLength: 10 }).map((value) => ({ kind: 'string' as const, value })),
      );
    case '<':
    case '>':
    case '<=':
    case '>=':
      return plainNumber.map((value) => ({ kind: 'number' as const, value }));
    case 'geo_box':
      return fc.tuple(point, point).map((points) => ({ kind: 'geo' as const, points }));
    case 'geo_radius':
      return fc.tuple(point, fc.integer({ min: 1, max: 100_000 })).map(([p, r]) => ({ kind: 'geo' as const, points: [p], radius: r / 100 }));
    case 'geo_polygon':
      return fc.array(point, { minLength: 3, maxLength: 32 }).map((points) => ({ kind: 'geo' as const, points }));
  }
}

const OPS: Operator[] = ['contains', 'substr', 'contains_any', 'contains_all', 'contains_near', 'wildcard', 'exists', 'in', 'url_in', '==', '!=', '<', '>', '<=', '>=', 'regex_partial', 'regex_exact', 'geo_box', 'geo_radius', 'geo_polygon'];

export const conditionArb: fc.Arbitrary<Condition> = fc.constantFrom(...OPS).chain((op) =>
  fc
    .record({
      target: fc.constantFrom(...TARGETS),
      cs: CASE_OPERATORS.has(op) ? fc.boolean() : fc.constant(false),
      switches:
        op === 'contains' || op === 'contains_any'
          ? fc.constantFrom<Switch[]>([], [{ name: 'case', arg: 'true' }], [{ name: 'keep', arg: 'classic' }])
          : fc.constant<Switch[]>([]),
      arg: argumentFor(op),
    })
    .map((r) => ({ type: 'cond' as const, op, ...r })),
);

/** Flattens groups into the parser's normal form. */
export function normalize(e: Expr): Expr {
  if (e.type === 'not') return { type: 'not', item: normalize(e.item) };
  if (e.type === 'and' || e.type === 'or') {
    const items: Expr[] = [];
    for (const x of e.items.map(normalize)) {
      if (x.type === e.type) items.push(...x.items);
      else items.push(x);
    }
    return { type: e.type, items };
  }
  return e;
}

export const exprArb: fc.Arbitrary<Expr> = fc
  .letrec<{ expr: Expr }>((tie) => ({
    expr: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      conditionArb,
      hash.map((h) => ({ type: 'stream' as const, hash: h })),
      tie('expr').map((item) => ({ type: 'not' as const, item })),
      fc.record({ type: fc.constantFrom('and' as const, 'or' as const), items: fc.array(tie('expr'), { minLength: 2, maxLength: 4 }) }),
    ),
  }))
  .expr.map(normalize);

const segment = fc
  .string({ unit: fc.constantFrom(...'abz09_-'.split('')), minLength: 1, maxLength: 5 })
  .filter((s) => !/^\d+$/.test(s));

const tagRuleArb: fc.Arbitrary<TagRule> = fc.oneof(
  fc.record({ type: fc.constant('tag' as const), namespace: fc.array(segment, { maxLength: 3 }), name: fc.string({ minLength: 1, maxLength: 8 }), body: exprArb }),
  fc.record({ type: fc.constant('score' as const), namespace: fc.array(segment, { minLength: 1, maxLength: 3 }), score: plainNumber, body: exprArb }),
  hash.map((h) => ({ type: 'include' as const, hash: h })),
);

export const definitionArb: fc.Arbitrary<Definition> = fc.oneof(
  exprArb.map((body) => ({ form: 'plain' as const, tags: [], body })),
  fc.record({ form: fc.constant('return' as const), tags: fc.array(tagRuleArb, { minLength: 1, maxLength: 3 }), body: exprArb }),
  fc.record({ form: fc.constant('tags-only' as const), tags: fc.array(tagRuleArb, { minLength: 1, maxLength: 3 }), body: fc.constant(null) }),
);
