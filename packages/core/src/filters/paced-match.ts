import type { CompiledFilter, Interaction, MatchResult } from './compiled-filter.ts';
import { CONDITION_WORK } from './conditions.ts';
import { WORK_PER_TURN } from './limits.ts';
import type { WorkMeter } from './linear-regex.ts';

/**
 * Matches one filter against one interaction for a caller matching a batch (recording, stream
 * matching), sharing the event loop by work: whenever `meter` reaches `WORK_PER_TURN` the caller's turn
 * ends (`yieldTurn`) and the meter starts again from 0.
 *
 * Most matches are far below a turn and run in one go (`match`), as they always did. A filter whose
 * patterns could read more than the turn has left (its instructions × every character of the
 * interaction, plus its conditions) is run in steps instead (`matchSteps`), which pauses inside a long
 * pattern match too; one whose bound fits a whole turn only waits for a fresh one. Without `yieldTurn`
 * matching never pauses. Answers are the same either way. Returns a promise only when it paused.
 */
export function matchInTurns(
  filter: CompiledFilter,
  i: Interaction,
  memo: Map<string, unknown> | undefined,
  meter: WorkMeter,
  yieldTurn: (() => Promise<void>) | undefined,
): MatchResult | Promise<MatchResult> {
  if (!yieldTurn) return filter.match(i, memo, meter);
  if (filter.regexInstructions > 0) {
    const chars = textChars(i);
    const most = filter.regexInstructions * chars + filter.counts.conditions * CONDITION_WORK + chars;
    if (meter.work + most > WORK_PER_TURN) return most <= WORK_PER_TURN ? inFreshTurn(filter, i, memo, meter, yieldTurn) : inSteps(filter, i, memo, meter, yieldTurn);
  }
  const result = filter.match(i, memo, meter);
  if (meter.work < WORK_PER_TURN) return result;
  meter.work = 0;
  return yieldTurn().then(() => result);
}

async function inFreshTurn(filter: CompiledFilter, i: Interaction, memo: Map<string, unknown> | undefined, meter: WorkMeter, yieldTurn: () => Promise<void>): Promise<MatchResult> {
  meter.work = 0;
  await yieldTurn();
  const result = filter.match(i, memo, meter);
  if (meter.work >= WORK_PER_TURN) {
    meter.work = 0;
    await yieldTurn();
  }
  return result;
}

async function inSteps(filter: CompiledFilter, i: Interaction, memo: Map<string, unknown> | undefined, meter: WorkMeter, yieldTurn: () => Promise<void>): Promise<MatchResult> {
  const steps = filter.matchSteps(i, memo, meter);
  for (;;) {
    const step = steps.next();
    if (step.done) {
      if (meter.work >= WORK_PER_TURN) {
        meter.work = 0;
        await yieldTurn();
      }
      return step.value;
    }
    meter.work = 0;
    await yieldTurn();
  }
}

/** Characters a number or a boolean may read as (`textOf`). */
const SCALAR_CHARS = 24;
const charsOf = new WeakMap<object, number>();

/**
 * Characters of every text in the interaction (numbers and booleans as `SCALAR_CHARS`): at most what
 * one pattern of a filter reads of it, whatever target it names. Counted once per interaction.
 */
export function textChars(i: Interaction): number {
  const known = charsOf.get(i);
  if (known !== undefined) return known;
  let n = 0;
  // A stack rather than recursion: an ingested interaction may nest thousands deep.
  const stack: unknown[] = [i];
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v === 'string') n += v.length;
    else if (typeof v === 'number' || typeof v === 'boolean') n += SCALAR_CHARS;
    else if (Array.isArray(v)) for (const x of v) stack.push(x);
    else if (v !== null && typeof v === 'object') for (const x of Object.values(v)) stack.push(x);
  }
  charsOf.set(i, n);
  return n;
}
