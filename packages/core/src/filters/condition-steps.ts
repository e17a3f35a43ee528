import type { Condition } from './ast.ts';
import { caseSensitive, compileCondition, CONDITION_WORK } from './conditions.ts';
import { WORK_PER_TURN } from './limits.ts';
import type { LinearRegex, WorkMeter } from './linear-regex.ts';
import type { FilterKind } from './parser.ts';
import { conditionAutomata, usesAutomata } from './regex-programs.ts';
import type { Steps, Test } from './scope.ts';
import { targetReader } from './target-reader.ts';
import { textsOf, tokensOf } from './target-tokens.ts';

/*
 * One condition taken in steps (`Steps`). A pattern's match is the one piece of work that re2js cannot
 * cut, so `regex_partial`, `regex_exact` and `wildcard` run a long match slice by slice (`LinearRegex.start`),
 * each slice as many characters as the meter has room for; every other operator runs as its test does
 * and pauses after it once the meter is full. Answers and the meter's figures are those of the test.
 */

/** A test that pauses after itself once the meter has reached the turn's work. */
export function paced(test: Test): Steps {
  return function* (s) {
    const answer = test(s);
    if (s.meter.work >= WORK_PER_TURN) yield;
    return answer;
  };
}

export function compileConditionSteps(c: Condition, kind: FilterKind): Steps {
  if (!usesAutomata(c)) return paced(compileCondition(c, kind));
  const readI = targetReader(c.target);
  const res = conditionAutomata(c, kind);
  if (c.op === 'wildcard') {
    const cs = caseSensitive(c, kind);
    const tokenKey = cs ? `T|${c.target}` : `t|${c.target}`;
    const perChar = res.reduce((n, re) => n + re.instructions, 0);
    const wholes = res.map((re) => re.whole);
    return function* (s) {
      s.meter.work += CONDITION_WORK;
      const lists = tokensOf(s, tokenKey, readI, cs);
      for (let k = 0; k < lists.length; k++) {
        for (const w of lists[k]!) {
          if (s.meter.work + w.length * perChar <= WORK_PER_TURN) {
            s.meter.work += w.length * perChar;
            for (const whole of wholes) if (whole(w)) return true;
            continue;
          }
          // A token longer than what is left of the turn: item by item, each in slices if need be.
          for (const re of res) if (yield* matchInSlices(re, w, true, s.meter)) return true;
        }
      }
      if (s.meter.work >= WORK_PER_TURN) yield;
      return false;
    };
  }
  const re = res[0]!;
  const whole = c.op === 'regex_exact';
  const key = `S|${c.target}`;
  return function* (s) {
    s.meter.work += CONDITION_WORK;
    const texts = textsOf(s, key, readI, true);
    for (let k = 0; k < texts.length; k++) if (yield* matchInSlices(re, texts[k]!, whole, s.meter)) return true;
    if (s.meter.work >= WORK_PER_TURN) yield;
    return false;
  };
}

/**
 * `re.find(text)` (or `re.whole`), charging the meter characters × instructions as the test does: in one
 * go through re2js when that fits in what is left of the turn, else slice by slice, pausing whenever the
 * meter has no room for another slice.
 */
export function* matchInSlices(re: LinearRegex, text: string, whole: boolean, meter: WorkMeter): Generator<void, boolean, void> {
  const n = re.instructions;
  const cost = text.length * n;
  if (meter.work + cost <= WORK_PER_TURN) {
    meter.work += cost;
    return whole ? re.whole(text) : re.find(text);
  }
  const run = re.start(text, whole);
  // Starting may search the text once for literals every match needs (re2js's prefilter).
  meter.work += text.length;
  for (;;) {
    // A slice may read one unit past what it is given (a surrogate pair), so it is given one less.
    if (WORK_PER_TURN - meter.work < 2 * n) yield;
    const before = run.read;
    const answer = run.advance(Math.floor((WORK_PER_TURN - meter.work) / n) - 1);
    meter.work += (run.read - before) * n;
    if (answer !== undefined) return answer;
  }
}
