import { describe, expect, it } from 'vitest';
import { fc, test } from '@fast-check/vitest';
import { compileFilter, type Interaction } from './compiled-filter.ts';
import { compileLinearRegex, UnsupportedRegex, wildcardPattern } from './linear-regex.ts';

const post = (content: string): Interaction => ({ interaction: { content, subtype: 'story' }, fb: { content, type: 'story' } });
const LONG = 10_000;

/** How many of the lines a filter matches: each line is one interaction. */
const countMatches = (filter: string, lines: string[]): number => {
  const f = compileFilter(filter);
  let n = 0;
  for (const line of lines) if (f.match(post(line)).matched) n++;
  return n;
};

/**
 * The patterns of the report (each one froze a backtracking engine for seconds on a 26-character line)
 * against 10,000-character lines. What is checked is the count: that the answers are right. Time is the
 * benchmark's (bench/regex-worst.ts); here a backtracking engine would simply never finish.
 */
describe('catastrophic patterns run in linear time with the right answers', () => {
  const lines = ['a'.repeat(LONG), 'a'.repeat(LONG - 1) + 'b', 'a'.repeat(LONG - 1) + 'c', 'b'.repeat(LONG)];
  const cases: Array<[string, 'regex_partial' | 'regex_exact', number]> = [
    ['^(a|a)*$', 'regex_partial', 1],
    ['(a|aa)*c', 'regex_partial', 1],
    ['(a|aa)*c', 'regex_exact', 1],
    ['(a?){25}a{25}', 'regex_partial', 3],
    ['a*a*a*a*a*a*a*a*a*a*b', 'regex_partial', 2],
    ['(a+)+$', 'regex_partial', 1],
    ['(a+)+b', 'regex_exact', 1],
    ['(a|a?)+$', 'regex_partial', 4],
    ['^(a|a?)+$', 'regex_partial', 1],
    ['(.*a){12}', 'regex_partial', 3],
    ['(x+x+)+y', 'regex_partial', 0],
  ];
  it.each(cases)('%s (%s) matches %i of the lines', (pattern, op, expected) => {
    expect(countMatches(`interaction.content ${op} ${JSON.stringify(pattern)}`, lines)).toBe(expected);
  });

  it('a wildcard of many stars matches by the automaton too', () => {
    const words = ['a'.repeat(LONG), 'a'.repeat(LONG) + 'b'];
    expect(countMatches('interaction.content wildcard "a*a*a*a*a*a*a*a*b"', words)).toBe(1);
  });

  // A generated family: nested quantifiers and alternations over `a`, checked against JavaScript's own
  // engine on short lines (where backtracking is still quick) and run on the long line for a count.
  const atom = fc.constantFrom('a', 'a?', 'a*', 'a+', '(a|a)', '(a|aa)', '(?:a|b)');
  const pattern = fc.letrec<{ p: string }>((tie) => ({
    // Shallow enough that the backtracking engine used as the reference still answers on short lines.
    p: fc.oneof(
      { maxDepth: 3, withCrossShrink: true },
      atom,
      fc.tuple(tie('p'), fc.constantFrom('*', '+', '?', '{2,5}', '{3}')).map(([p, q]) => `(${p})${q}`),
      fc.tuple(tie('p'), tie('p')).map(([x, y]) => x + y),
      fc.tuple(tie('p'), tie('p')).map(([x, y]) => `(${x}|${y})`),
    ),
  })).p;
  test.prop([pattern, fc.constantFrom('', 'b', 'c'), fc.integer({ min: 0, max: 6 })], { numRuns: 80 })(
    'nested quantifiers agree with a backtracking engine on short lines and finish on long ones',
    (p, tail, n) => {
      const re = compileLinearRegex(p);
      const short = 'a'.repeat(n) + tail;
      expect(re.find(short)).toBe(new RegExp(p).test(short));
      expect(re.whole(short)).toBe(new RegExp(`^(?:${p})$`).test(short));
      const long = 'a'.repeat(LONG) + tail;
      expect(typeof re.whole(long)).toBe('boolean');
    },
  );
});

describe('what the engine cannot express is refused at validate, naming the construct', () => {
  it.each([
    ['(a)\\1', /backreferences/],
    ['(?=a)b', /lookaround/],
    ['(?!a)b', /lookaround/],
    ['a{1001}', /\{1001\}/],
    ['(a', /missing closing \)/],
  ])('%s', (p, named) => {
    expect(() => compileLinearRegex(p)).toThrow(UnsupportedRegex);
    expect(() => compileFilter(`interaction.content regex_partial ${JSON.stringify(p)}`)).toThrow(named);
  });
});

describe('wildcard items', () => {
  it('quote everything but * and ?', () => {
    const re = compileLinearRegex(wildcardPattern('a.b*(c)?'), { dotAll: true });
    expect(re.whole('a.bxx(c)!')).toBe(true);
    expect(re.whole('axbxx(c)!')).toBe(false);
  });
});
