import { describe, expect, it } from 'vitest';
import { fc, test } from '@fast-check/vitest';
import { compileFilter, type CompiledFilter, type Interaction, type MatchResult } from './compiled-filter.ts';
import { CONDITION_WORK } from './conditions.ts';
import { FILTER_LIMITS, WORK_PER_TURN } from './limits.ts';
import { matchInTurns } from './paced-match.ts';

const post = (content: string): Interaction => ({ interaction: { content }, fb: { content, type: 'story' } });

/** Drives `matchSteps` as `matchInTurns` does, recording the work of every synchronous step. */
function driven(f: CompiledFilter, i: Interaction, startWork = 0): { result: MatchResult; steps: number[] } {
  const meter = { work: startWork };
  const gen = f.matchSteps(i, new Map(), meter);
  const steps: number[] = [];
  let from = startWork;
  for (;;) {
    const step = gen.next();
    steps.push(meter.work - from);
    if (step.done) return { result: step.value, steps };
    meter.work = 0;
    from = 0;
  }
}

const WORDS = ['ac', 'b', 'Kettle', 'kelvin', 'x1', 'ß', '😀', 'acab', 'c'];
const text = fc.array(fc.constantFrom(...WORDS), { minLength: 0, maxLength: 600 }).map((w) => w.join(' '));
const cond = fc.oneof(
  fc.constantFrom('a.{300}b', 'a.{40}c', '(?i)kel', '^ac', 'b$', '\\bx1\\b', '(?s)a.*c', '😀.{0,20}ß', 'q').map((p) => `fb.content regex_partial ${JSON.stringify(p)}`),
  fc.constantFrom('(ac |b )*ac', '.*', 'ac.*').map((p) => `fb.content regex_exact ${JSON.stringify(p)}`),
  fc.constantFrom('"k*n"', '"a?ab,ac"', '"ß*c"').map((w) => `fb.content wildcard ${w}`),
  fc.constantFrom('contains "kettle"', 'contains_any "b, q"', 'substr "cab"', 'contains_near "ac,b:1"').map((c) => `fb.content ${c}`),
);
const expr = fc.letrec<{ e: string }>((tie) => ({
  e: fc.oneof(
    { maxDepth: 3 },
    cond,
    fc.tuple(tie('e'), fc.constantFrom('AND', 'OR'), tie('e')).map(([x, op, y]) => `(${x} ${op} ${y})`),
    tie('e').map((x) => `NOT ${x}`),
  ),
})).e;
const definition = fc
  .tuple(fc.array(expr, { maxLength: 3 }), expr)
  .map(([tags, body]) => `${tags.map((t, k) => `tag "t${k}" { ${t} }`).join('\n')}\nreturn { ${body} }`);

describe('matching in steps (matchSteps, matchInTurns)', () => {
  test.prop([definition, text, fc.integer({ min: 0, max: WORK_PER_TURN })], { numRuns: 120 })(
    'gives what match gives, tags included, from any point of a turn',
    (d, t, startWork) => {
      const f = compileFilter(d);
      const i = post(t);
      expect(driven(f, i, startWork).result).toEqual(f.match(i, new Map()));
    },
  );

  // The invariant the steps exist for: the patterns of a definition at the regular-expression budget
  // against an 8,000-character text are 32 M units of work that `match` does in one synchronous step; in
  // steps none is more than a turn, beyond what one condition charges before its pattern runs (its test
  // and reading its text once).
  it('never lets the patterns hold one step past the turn', () => {
    const rules = ['a.{900}b', 'a.{900}b', 'a.{900}b', 'a.{900}b', 'a.{380}b'].map((p) => `fb.content regex_partial "${p}"`);
    const f = compileFilter(rules.join(' OR '));
    expect(f.regexInstructions).toBe(FILTER_LIMITS.regexBudget);
    const content = 'b' + 'ac'.repeat(4_000);
    const i = post(content);
    const whole = { work: 0 };
    expect(f.match(i, new Map(), whole).matched).toBe(false);
    expect(whole.work).toBeGreaterThan(60 * WORK_PER_TURN);
    const { result, steps } = driven(f, i);
    expect(result.matched).toBe(false);
    expect(Math.max(...steps)).toBeLessThanOrEqual(WORK_PER_TURN + CONDITION_WORK + content.length);
    expect(steps.length).toBeGreaterThanOrEqual(Math.floor(whole.work / WORK_PER_TURN));
  });

  it('takes included definitions (`stream`, `tags`) in steps too, with their tags', () => {
    const rules = compileFilter('tag "far" { fb.content regex_partial "a.{299}b" } tag "near" { fb.content regex_partial "c.{2}a" }');
    const inner = compileFilter('fb.content regex_exact "(ac)*b?" OR fb.content contains "kettle"');
    const f = compileFilter(`tags "${rules.hash}" tag "own" { fb.content wildcard "ac*" } return { stream "${inner.hash}" and fb.content exists }`);
    for (const content of ['ac'.repeat(3_000) + 'b', 'ac'.repeat(3_000), 'b' + 'ac'.repeat(3_000)]) {
      const i = post(content);
      const { result, steps } = driven(f, i, WORK_PER_TURN - 1_000);
      expect(result).toEqual(f.match(i, new Map()));
      expect(steps.length).toBeGreaterThan(1);
      expect(Math.max(...steps)).toBeLessThanOrEqual(WORK_PER_TURN + CONDITION_WORK + content.length);
    }
    expect(f.match(post('ac'.repeat(3_000) + 'b')).tags).toEqual(['far', 'near', 'own']);
  });

  it('pauses inside a wildcard item over one long token', () => {
    const f = compileFilter('fb.content wildcard "a*b*a*b*a*b*c"');
    const i = post('ab'.repeat(20_000));
    const { result, steps } = driven(f, i);
    expect(result).toEqual(f.match(i));
    expect(steps.length).toBeGreaterThan(1);
    expect(Math.max(...steps)).toBeLessThanOrEqual(WORK_PER_TURN + CONDITION_WORK + 40_000);
  });

  it('runs a small match in one go, a heavy one in turns, and never pauses without a way to', async () => {
    const heavy = compileFilter('fb.content regex_partial "a.{900}b" OR fb.content regex_partial "c.{900}b"');
    const big = post('b' + 'ac'.repeat(2_000));
    const small = post('ac b');
    let turns = 0;
    const yieldTurn = async (): Promise<void> => {
      turns++;
    };
    const quick = matchInTurns(heavy, small, undefined, { work: 0 }, yieldTurn);
    expect(quick).not.toBeInstanceOf(Promise);
    expect(turns).toBe(0);
    const slow = matchInTurns(heavy, big, undefined, { work: 0 }, yieldTurn);
    expect(slow).toBeInstanceOf(Promise);
    expect(await slow).toEqual(heavy.match(big));
    expect(turns).toBeGreaterThanOrEqual(Math.floor((4_001 * heavy.regexInstructions) / WORK_PER_TURN));
    expect(matchInTurns(heavy, big, undefined, { work: 0 }, undefined)).toEqual(heavy.match(big));
  });
});
