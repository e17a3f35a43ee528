import { RE2JS, RE2JSException } from 're2js';
import { flatten, RegexRun, type Program, type Re2Program } from './regex-run.ts';

/**
 * Tenants' regular expressions run on RE2's automaton (re2js, pure JavaScript): matching time grows with
 * the text's length times the pattern's size, never exponentially, so no pattern one account writes can
 * stall the process for the others. The platform ran RE2 too, so this is also the dialect it accepted.
 *
 * Linear is not small: the pattern's factor is its program (`a.{900}b` is 904 instructions), and re2js
 * gives every pattern a lazily built DFA cache of up to 8 MB by default. So each pattern reports its
 * program size (what `limits.ts` budgets per pattern and per definition), its DFA cache is bounded in
 * proportion to that program, and every match is counted as text length × program size on a meter, so
 * callers can share the event loop by work rather than by item.
 */
export interface LinearRegex {
  /** Whether the pattern occurs anywhere in the text (`regex_partial`). */
  find(text: string): boolean;
  /** Whether the pattern spans the whole text (`regex_exact`). */
  whole(text: string): boolean;
  /**
   * The same test (`find`, or `whole` when `whole`), to be run a slice at a time (`RegexRun.advance`), so
   * that a caller can give the event loop turns inside one long match. Same answers, slower per character.
   */
  start(text: string, whole: boolean): RegexRun;
  /** Instructions of the compiled program: the per-character factor of every match. */
  readonly instructions: number;
  /** Bytes the DFA cache holds now, as re2js accounts them (never above `dfaBudget(instructions)`). */
  cacheBytes(): number;
  /** Drops the DFA cache; the next match rebuilds what it needs. */
  release(): void;
}

/** A pattern the engine cannot express; the message names the construct (`\1`, `(?=`, `{1001}`). */
export class UnsupportedRegex extends Error {}

/** A pattern whose program would pass `maxInstructions`; `instructions` is the figure (an upper bound when `estimated`). */
export class RegexTooLarge extends Error {
  constructor(
    readonly instructions: number,
    readonly estimated: boolean,
  ) {
    super(`the pattern compiles to ${estimated ? 'up to ' : ''}${instructions} instructions`);
  }
}

/**
 * DFA cache bytes allowed per program instruction. A DFA state of a program of n instructions holds up to
 * n of them (re2js accounts 150 + 8 per instruction, plus a transition table), so a budget in proportion
 * to the program keeps tens of states for short patterns (all they ever build) while a `.{900}` program
 * resets its cache or falls back to the NFA instead of keeping megabytes. Measured on `a.{900}b` against
 * 4 KB that never matches: the default 8 MB cache kept 6 MB and took 400–600 ms; 256 bytes an instruction
 * kept 0.24 MB and took 35–45 ms (thrashing a huge cache is the slow part).
 */
export const DFA_BYTES_PER_INSTRUCTION = 256;
export const dfaBudget = (instructions: number): number => DFA_BYTES_PER_INSTRUCTION * instructions;

interface Re2Internals extends Re2Program {
  prog: Re2Program['prog'] & { numInst(): number };
  lazyDFA: { stateBudget: number; memBudget: number } | null;
  prefilter: { eval(input: PrefilterInput, pos: number): boolean } | null;
}

/** What re2js's prefilter asks of a UTF-16 input (as its `MachineUTF16Input` answers). */
interface PrefilterInput {
  hasString(prefilter: { str: string }, pos: number): boolean;
  hasAnyString(prefilter: { automaton16(): { searchUTF16(text: string, from: number, to: number): boolean } }, pos: number): boolean;
}
const utf16Input = (text: string): PrefilterInput => ({
  hasString: (prefilter, pos) => {
    const at = text.indexOf(prefilter.str, pos);
    return at !== -1 && at <= text.length - prefilter.str.length;
  },
  hasAnyString: (prefilter, pos) => prefilter.automaton16().searchUTF16(text, pos, text.length),
});
type DfaConstructor = new (prog: unknown, maxMem: number) => NonNullable<Re2Internals['lazyDFA']>;
// re2js exports no DFA class nor a memory option for single patterns (only RE2Set takes `maxMem`); its
// constructor is reached through a compiled pattern. `linear-regex.spec.ts` fails should an upgrade move it.
const DFA = ((RE2JS.compile('a').re2() as unknown as { dfa: object }).dfa as { constructor: DfaConstructor }).constructor;

/**
 * What matching has cost so far, added to by every test of the filter language (`conditions.ts`): a
 * pattern characters read × program instructions, a text operator the tokens or characters it scans ×
 * the words or phrases it looks for, a comparison the length of the values it reads. One unit is about
 * one step of the matcher, whatever the operator, so that one figure (`WORK_PER_TURN`) bounds a turn.
 */
export interface WorkMeter {
  work: number;
}

export function compileLinearRegex(pattern: string, options: { caseInsensitive?: boolean; dotAll?: boolean; maxInstructions?: number } = {}): LinearRegex {
  const max = options.maxInstructions ?? Infinity;
  // Compiling is itself linear in the program: a 10 KB pattern of `a.{1000}` repeats compiles to 1.3 M
  // instructions (0.8 s, 57 MB), so what would pass the bound is refused before re2js builds it.
  // The bound is tight for repeats and loose for alternations of single characters (`(a|b){500}`), so
  // patterns a little over it are compiled and judged by their real size.
  const bound = programSizeBound(pattern);
  if (bound > 4 * max) throw new RegexTooLarge(bound, true);
  const flags = (options.caseInsensitive ? RE2JS.CASE_INSENSITIVE : 0) | (options.dotAll ? RE2JS.DOTALL : 0);
  let re: RE2JS;
  try {
    re = RE2JS.compile(pattern, flags);
  } catch (error) {
    if (error instanceof RE2JSException) throw new UnsupportedRegex(describe(error.message));
    throw error;
  }
  const re2 = re.re2() as unknown as Re2Internals;
  const instructions = re2.prog.numInst();
  if (instructions > max) throw new RegexTooLarge(instructions, false);
  const fresh = (): void => {
    re2.lazyDFA = new DFA(re2.prog, dfaBudget(instructions));
  };
  fresh();
  let program: Program | undefined;
  return {
    find: (text) => re.test(text),
    whole: (text) => re.testExact(text),
    start: (text, whole) => {
      const run = new RegexRun((program ??= flatten(re2)), text, whole);
      // re2js's own first look for `find` (`Prefilter`): literals every match contains, searched with
      // indexOf; one missing, nothing matches, and most texts are answered so.
      if (!whole && re2.prefilter && !re2.prefilter.eval(utf16Input(text), 0)) run.ruledOut();
      return run;
    },
    instructions,
    cacheBytes: () => (re2.lazyDFA ? re2.lazyDFA.stateBudget - re2.lazyDFA.memBudget : 0),
    release: fresh,
  };
}

/** re2js says `error parsing regexp: invalid escape sequence: \`\1\``; the user needs the last part. */
function describe(message: string): string {
  const detail = message.replace(/^error parsing regexp:\s*/, '');
  if (/invalid escape sequence: `\\[1-9]/.test(detail)) return `${detail} (backreferences are not supported)`;
  if (/`\(\?[=!]|`\(\?<[=!]/.test(detail)) return `${detail} (lookaround is not supported)`;
  return detail;
}

/**
 * An upper bound of the instructions re2js compiles `pattern` to, read from its text without compiling:
 * every atom (a character, a class, an escape) is one instruction, a group two more, an alternation one
 * per `|`, `* + ?` two; `{n}` multiplies by n, `{n,m}` by m plus m − n + 1, `{n,}` by n + 1 plus 2. re2js's own
 * sizes are these or smaller (a class of alternatives becomes one instruction); a text it would refuse
 * may get any bound, since compiling refuses it anyway. Held above the compiled size by a property.
 */
export function programSizeBound(pattern: string): number {
  type Frame = { done: number; alts: number; cur: number; last: number; group: number };
  const stack: Frame[] = [];
  let f: Frame = { done: 0, alts: 0, cur: 0, last: 0, group: 0 };
  const atom = (size: number): void => {
    f.cur += size;
    f.last = size;
  };
  const cps = Array.from(pattern);
  const n = cps.length;
  let i = 0;
  // Skips `{...}` after `\p`, `\x` and the like.
  const braced = (): void => {
    if (cps[i] === '{') {
      while (i < n && cps[i] !== '}') i++;
      i++;
    } else i++;
  };
  while (i < n) {
    const c = cps[i]!;
    if (c === '\\') {
      const e = cps[i + 1];
      i += 2;
      if (e === 'Q') {
        while (i < n && !(cps[i] === '\\' && cps[i + 1] === 'E')) {
          atom(1);
          i++;
        }
        i += 2;
      } else {
        if (e === 'p' || e === 'P' || e === 'x') braced();
        atom(1);
      }
    } else if (c === '[') {
      i++;
      if (cps[i] === '^') i++;
      if (cps[i] === ']') i++;
      while (i < n && cps[i] !== ']') {
        if (cps[i] === '\\') {
          const e = cps[i + 1];
          i += 2;
          if (e === 'p' || e === 'P' || e === 'x') braced();
        } else if (cps[i] === '[' && cps[i + 1] === ':') {
          const end = cps.indexOf(']', i + 2);
          i = end < 0 ? n : end + 1;
        } else i++;
      }
      i++;
      atom(1);
    } else if (c === '(') {
      i++;
      let group = 2;
      if (cps[i] === '?') {
        // `(?i)` sets flags for what follows; `(?i:...)` and `(?:...)` group without capturing.
        let j = i + 1;
        while (j < n && /[a-zA-Z-]/.test(cps[j]!)) j++;
        if (cps[j] === ')') {
          i = j + 1;
          continue;
        }
        if (cps[j] === ':') {
          group = 0;
          i = j + 1;
        }
      }
      stack.push(f);
      f = { done: 0, alts: 0, cur: 0, last: 0, group };
    } else if (c === ')') {
      i++;
      const size = f.done + f.cur + f.alts + f.group;
      f = stack.pop() ?? { done: 0, alts: 0, cur: 0, last: 0, group: 0 };
      atom(Math.max(1, size));
    } else if (c === '|') {
      i++;
      f.done += f.cur;
      f.alts++;
      f.cur = 0;
      f.last = 0;
    } else if (c === '*' || c === '+' || c === '?') {
      i++;
      if (cps[i] === '?') i++;
      f.cur += 2;
      f.last += 2;
    } else if (c === '{') {
      const m = /^\{(\d{1,7})(,(\d{0,7}))?\}/.exec(cps.slice(i, i + 18).join(''));
      if (!m) {
        i++;
        atom(1);
        continue;
      }
      i += Array.from(m[0]).length;
      if (cps[i] === '?') i++;
      const lo = Number(m[1]);
      const hi = m[2] === undefined ? lo : m[3] === '' ? -1 : Number(m[3]);
      const s = f.last;
      const size = hi === -1 ? (lo + 1) * s + 2 : hi === lo ? lo * s : hi * s + (hi - lo) + 1;
      f.cur += size - s;
      f.last = size;
    } else {
      i++;
      atom(1);
    }
  }
  while (stack.length > 0) {
    const size = f.done + f.cur + f.alts + f.group;
    f = stack.pop()!;
    atom(size);
  }
  // The program's fail and match instructions, and the capture of the whole match.
  return f.done + f.cur + f.alts + 4;
}

/** A `wildcard` item (`*` any run, `?` one character) as a linear pattern over the whole word. */
export function wildcardPattern(item: string): string {
  let out = '';
  let literal = '';
  const flush = () => {
    if (literal) out += RE2JS.quote(literal);
    literal = '';
  };
  for (const ch of item) {
    if (ch === '*' || ch === '?') {
      flush();
      out += ch === '*' ? '.*' : '.';
    } else literal += ch;
  }
  flush();
  return out;
}
