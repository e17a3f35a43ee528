import { describe, expect, it } from 'vitest';
import { fc, test } from '@fast-check/vitest';
import { RE2JS } from 're2js';
import { compileLinearRegex, UnsupportedRegex, type LinearRegex } from './linear-regex.ts';

/** Runs `re.start` to the end in slices of the given sizes (cycled), as a caller sharing the loop would. */
function sliced(re: LinearRegex, text: string, whole: boolean, slices: number[]): { answer: boolean; steps: number; maxRead: number } {
  const run = re.start(text, whole);
  let steps = 0;
  let maxRead = 0;
  for (;;) {
    const before = run.read;
    const answer = run.advance(slices[steps % slices.length]!);
    maxRead = Math.max(maxRead, run.read - before);
    steps++;
    if (answer !== undefined) return { answer, steps, maxRead };
    if (steps > 4 * text.length + 8) throw new Error('the run makes no progress');
  }
}

// Characters that test what re2js compiles specially: case pairs with more than two members (k, K and the
// Kelvin sign; s, S and the long s), letters outside ASCII, a pair of surrogates and a lone one, word and
// non-word characters either side of `\b`, and the line feed that `(?m)` and `(?s)` turn on.
const CHARS = ['a', 'b', 'A', 'B', 'k', 'K', '\u212a', 's', '\u017f', 'é', 'É', 'ß', '😀', '\ud83d', '_', '1', ' ', '\n', '-'];

const atom = fc.constantFrom(
  'a', 'b', 'A', 'k', 's', 'é', 'ß', '😀', '1', ' ', '\\n', '.', '[a-c]', '[^a]', '[kK]', '[é-ë]', '\\w', '\\W', '\\d', '\\s', '\\pL',
  '\\b', '\\B', '^', '$', '\\A', '\\z', '(?:)',
);
const pattern = fc.letrec<{ p: string }>((tie) => ({
  p: fc.oneof(
    { maxDepth: 4, withCrossShrink: true },
    atom,
    fc.tuple(tie('p'), fc.constantFrom('*', '+', '?', '*?', '+?', '{2}', '{1,3}', '{0,2}?')).map(([p, q]) => `(?:${p})${q}`),
    fc.tuple(tie('p'), tie('p')).map(([x, y]) => x + y),
    fc.tuple(tie('p'), tie('p')).map(([x, y]) => `(${x}|${y})`),
  ),
})).p;
const flags = fc.constantFrom('', '(?i)', '(?s)', '(?m)', '(?is)', '(?im)', '(?ms)', '(?ims)');
const text = fc.array(fc.constantFrom(...CHARS), { maxLength: 24 }).map((cs) => cs.join(''));
const slices = fc.array(fc.integer({ min: 1, max: 7 }), { minLength: 1, maxLength: 4 });

describe('a match run in slices (RegexRun)', () => {
  test.prop([flags, pattern, text, slices, fc.boolean(), fc.boolean()], { numRuns: 600 })(
    'answers as re2js does, for find and for whole, however the text is sliced',
    (f, p, t, s, caseInsensitive, dotAll) => {
      let re: LinearRegex;
      try {
        re = compileLinearRegex(f + p, { caseInsensitive, dotAll });
      } catch (error) {
        if (error instanceof UnsupportedRegex) return;
        throw error;
      }
      expect(sliced(re, t, false, s).answer).toBe(re.find(t));
      expect(sliced(re, t, true, s).answer).toBe(re.whole(t));
    },
  );

  // n starts at 1: a text with no `a` lacks a literal every match needs, and the prefilter answers it at
  // once without reading it (the next test).
  test.prop([fc.integer({ min: 1, max: 50 }), fc.integer({ min: 1, max: 300 })], { numRuns: 50 })(
    'reads no more than it is given a slice (one more for a surrogate pair), and reads a text it does not match to the end',
    (units, n) => {
      const re = compileLinearRegex('a.{20}b');
      const t = 'b😀' + 'ac'.repeat(n);
      const r = sliced(re, t, false, [units]);
      expect(r.answer).toBe(false);
      expect(r.maxRead).toBeLessThanOrEqual(units + 1);
      expect(r.steps).toBeGreaterThanOrEqual(Math.ceil(t.length / (units + 1)));
    },
  );

  it('answers a text lacking a literal every match needs in one step, without reading it in slices', () => {
    const re = compileLinearRegex('a.{20}b');
    const r = sliced(re, 'b😀' + 'c'.repeat(300), false, [1]);
    expect(r.answer).toBe(false);
    expect(r.steps).toBe(1);
  });

  it('jumps to a literal prefix without reading more than its slice', () => {
    const re = compileLinearRegex('needle\\d');
    const t = 'x'.repeat(1000) + 'needle7';
    const r = sliced(re, t, false, [100]);
    expect(r).toMatchObject({ answer: true });
    expect(r.maxRead).toBeLessThanOrEqual(100);
    expect(sliced(re, 'x'.repeat(1000), false, [100]).answer).toBe(false);
  });

  it('answers false at once for a program that can never match', () => {
    const re = compileLinearRegex('a\\Ab');
    expect(re.find('ab')).toBe(false);
    expect(sliced(re, 'ab'.repeat(50), false, [1]).answer).toBe(false);
  });

  // The simulation reads re2js's program directly (`regex-run.ts`, `Re2Program`): an upgrade that renames
  // what it reads or renumbers the instructions fails here before it can change an answer.
  it('finds re2js internals where it reads them', () => {
    const re2 = RE2JS.compile('(?i)x[a-c]\\b.*$').re2() as unknown as {
      prog: { inst: { op: number; out: number; arg: number; runes: Int32Array; matchRune(r: number): boolean }[]; start: number; numLb: number };
      cond: number;
      prefix: string;
    };
    expect(Array.isArray(re2.prog.inst)).toBe(true);
    expect(typeof re2.prog.start).toBe('number');
    expect(re2.prog.numLb).toBe(0);
    expect(typeof re2.cond).toBe('number');
    expect(typeof re2.prefix).toBe('string');
    // The prefilter `LinearRegex.start` asks first, through an input of its own (`utf16Input`).
    const pf = (RE2JS.compile('(abc|abd)x.*yz').re2() as unknown as { prefilter: { eval: unknown } | null }).prefilter;
    expect(typeof pf?.eval).toBe('function');
    const ruledOut = compileLinearRegex('(abc|abd)x.*yz').start('abcx'.repeat(100), false);
    expect(ruledOut.advance(1)).toBe(false);
    expect(ruledOut.read).toBe(0);
    const ops = re2.prog.inst.map((i) => i.op);
    // fail, a folded rune, a class, an empty-width assertion, any-not-newline, alt, match.
    expect(ops[0]).toBe(5);
    expect(ops).toEqual(expect.arrayContaining([8, 4, 11, 1, 6]));
    const folded = re2.prog.inst.find((i) => i.op === 8 && i.runes.length === 1)!;
    expect(folded.matchRune('X'.codePointAt(0)!)).toBe(true);
  });
});
