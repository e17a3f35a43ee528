import { fc, test } from '@fast-check/vitest';
import { expect } from 'vitest';
import { BadRequest } from '../calls/errors.ts';
import { compileFilter } from './compiled-filter.ts';
import { definitionArb } from '../../test/filter-arbitraries.ts';
import { printDefinition } from './printer.ts';

const answer = (text: string, kind: 'definition' | 'query'): 'ok' | 'refused' => {
  try {
    compileFilter(text, { kind });
    return 'ok';
  } catch (e) {
    if (e instanceof BadRequest) return 'refused';
    throw e;
  }
};

const pieces = fc.constantFrom('fb.content', 'contains', '"x"', '(', ')', 'and', 'or', 'not', '{', '}', 'tag', 'return', '[', ']', '1', '-2.5', ',', ':', 'in', '==', 'cs', '"a,b"', '/*', '*/', '//', '\n', 'stream', '"', '\\', 'exists', 'tag.a', 'tags');

test.prop([fc.string({ maxLength: 80 }), fc.constantFrom('definition' as const, 'query' as const)], { numRuns: 500 })(
  'any text either compiles or is refused with a 400: nothing else escapes',
  (text, kind) => {
    expect(['ok', 'refused']).toContain(answer(text, kind));
  },
);

test.prop([fc.array(pieces, { maxLength: 20 }), fc.constantFrom('definition' as const, 'query' as const)], { numRuns: 500 })(
  'any sequence of the language\'s own tokens either compiles or is refused with a 400',
  (parts, kind) => {
    expect(['ok', 'refused']).toContain(answer(parts.join(' '), kind));
  },
);

test.prop([definitionArb, fc.nat(), fc.nat({ max: 3 })], { numRuns: 300 })('a valid filter cut or damaged anywhere is still answered with a 400 at worst', (d, at, how) => {
  const text = printDefinition(d);
  const k = text.length === 0 ? 0 : at % text.length;
  const damaged = how === 0 ? text.slice(0, k) : how === 1 ? text.slice(0, k) + text.slice(k + 1) : how === 2 ? `${text.slice(0, k)}"${text.slice(k)}` : `${text.slice(0, k)}(${text.slice(k)}`;
  expect(['ok', 'refused']).toContain(answer(damaged, 'definition'));
});

test.prop([definitionArb, fc.jsonValue(), fc.jsonValue()], { numRuns: 300 })('matching never throws, whatever shape the interaction has', (d, a, b) => {
  const f = compileFilter(printDefinition(d));
  const shapes = [a, { fb: a, interaction: b, links: a }, { fb: { content: a, author: b }, interaction: { content: b, geo: a } }];
  for (const i of shapes) {
    const r = f.match((typeof i === 'object' && i !== null && !Array.isArray(i) ? i : { value: i }) as Record<string, unknown>);
    expect(typeof r.matched).toBe('boolean');
  }
});
