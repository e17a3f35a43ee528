/**
 * A match that can stop and go on: the program re2js compiled for a pattern, simulated thread by thread
 * (the Pike NFA re2js itself falls back to) but answering only whether it matches, so it keeps no
 * captures and can be stopped after any character and resumed later with nothing but its thread lists.
 * re2js runs one test in one go; a 64 KiB text against a 2,000-instruction program is a second of work,
 * which this lets a caller cut into turns (`linear-regex.ts`, `LinearRegex.start`).
 *
 * It steps the same instructions as re2js's own NFA (`Machine.step` and `Machine.add`): the same rune
 * tests (case folding as the compiler encoded it), the same empty-width flags read from the characters
 * either side (`^ $ \A \z \b \B`, multi-line forms), the same UTF-16 stepping (a surrogate pair is one
 * code point). A property in `regex-run.spec.ts` holds its answers to re2js's `test` and `testExact`.
 */

/** re2js's instruction codes (`Inst`) and empty-width flags (`Utils.EMPTY_*`). */
const ALT = 1;
const ALT_MATCH = 2;
const CAPTURE = 3;
const EMPTY_WIDTH = 4;
const FAIL = 5;
const MATCH = 6;
const NOP = 7;
const RUNE = 8;
const RUNE1 = 9;
const RUNE_ANY = 10;
const RUNE_ANY_NOT_NL = 11;
const EMPTY_BEGIN_LINE = 1;
const EMPTY_END_LINE = 2;
const EMPTY_BEGIN_TEXT = 4;
const EMPTY_END_TEXT = 8;
const EMPTY_WORD_BOUNDARY = 16;
const EMPTY_NO_WORD_BOUNDARY = 32;

/** What the simulation reads of a re2js instruction. */
export interface Re2Inst {
  op: number;
  out: number;
  arg: number;
  runes: Int32Array;
  matchRune(r: number): boolean;
}

/** What the simulation reads of a compiled re2js pattern (`RE2`): its program and what it knows of its start. */
export interface Re2Program {
  prog: { inst: Re2Inst[]; start: number; numLb: number };
  /** Empty-width flags every match starts with (`\A`), or -1 when nothing can match. */
  cond: number;
  /** A literal every match begins with ('' when none). */
  prefix: string;
}

/** A program flattened once into typed arrays, shared by every run of its pattern. */
export interface Program {
  ops: Uint8Array;
  outs: Int32Array;
  args: Int32Array;
  insts: Re2Inst[];
  start: number;
  cond: number;
  prefix: string;
}

export function flatten(re2: Re2Program): Program {
  const { inst, start, numLb } = re2.prog;
  // Lookbehind needs re2js's own tables; the filter language never turns it on (`compileLinearRegex`).
  if (numLb > 0) throw new Error('lookbehind programs are not simulated');
  const n = inst.length;
  const ops = new Uint8Array(n);
  const outs = new Int32Array(n);
  const args = new Int32Array(n);
  for (let pc = 0; pc < n; pc++) {
    const i = inst[pc]!;
    ops[pc] = i.op;
    outs[pc] = i.out;
    args[pc] = i.arg;
  }
  return { ops, outs, args, insts: inst, start, cond: re2.cond, prefix: re2.prefix ?? '' };
}

const isWord = (c: number): boolean => (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;

/** The empty-width flags between code units `before` and `after` (-1 past either end), as `Utils.emptyOpContext`. */
function context(before: number, after: number): number {
  let flag = 0;
  if (before < 0) flag |= EMPTY_BEGIN_TEXT | EMPTY_BEGIN_LINE;
  if (before === 10) flag |= EMPTY_BEGIN_LINE;
  if (after < 0) flag |= EMPTY_END_TEXT | EMPTY_END_LINE;
  if (after === 10) flag |= EMPTY_END_LINE;
  return flag | (isWord(before) !== isWord(after) ? EMPTY_WORD_BOUNDARY : EMPTY_NO_WORD_BOUNDARY);
}

/** A set of program counters that remembers insertion order (Briggs–Torczon sparse set). */
class Threads {
  readonly sparse: Int32Array;
  readonly dense: Int32Array;
  size = 0;
  constructor(n: number) {
    this.sparse = new Int32Array(n);
    this.dense = new Int32Array(n);
  }
  has(pc: number): boolean {
    const j = this.sparse[pc]!;
    return j < this.size && this.dense[j] === pc;
  }
  add(pc: number): void {
    this.sparse[pc] = this.size;
    this.dense[this.size++] = pc;
  }
}

/**
 * One test of one text, in progress. `advance(units)` reads at most that many more UTF-16 code units (a
 * surrogate pair may carry it one past) and answers once it knows: `true` or `false`, else `undefined`
 * with its place kept. `read` is what it has read so far.
 */
export class RegexRun {
  private runq: Threads;
  private nextq: Threads;
  private readonly stack: Int32Array;
  private pos = 0;
  private answer: boolean | undefined;
  /** Where the prefix occurs next at or after `pos` (the text's length when it does not). */
  private prefixAt = -1;
  read = 0;

  constructor(
    private readonly p: Program,
    private readonly text: string,
    /** Whether the match must span the whole text (`testExact`), else anywhere in it (`test`). */
    private readonly whole: boolean,
  ) {
    const n = p.ops.length;
    this.runq = new Threads(n);
    this.nextq = new Threads(n);
    this.stack = new Int32Array(n + 1);
    if (p.cond === -1) this.answer = false;
  }

  /** Settles the answer as no match before reading: re2js's prefilter found a literal every match needs missing. */
  ruledOut(): void {
    this.answer = false;
  }

  advance(units: number): boolean | undefined {
    if (this.answer !== undefined) return this.answer;
    const { p, text, whole } = this;
    const len = text.length;
    const stop = Math.min(len, this.pos + Math.max(1, units));
    let pos = this.pos;
    const beganAt = pos;
    for (;;) {
      if (this.runq.size === 0) {
        // No thread alive: only a new start can match, and an anchored one may start only at 0.
        if (pos !== 0 && (whole || (p.cond & EMPTY_BEGIN_TEXT) !== 0)) return this.done(false, pos, beganAt);
        if (!whole && p.prefix.length > 0) {
          // Every match begins with the prefix: skip to its next occurrence (found once, then walked to).
          if (this.prefixAt < pos) {
            const at = text.indexOf(p.prefix, pos);
            this.prefixAt = at < 0 ? len : at;
          }
          if (this.prefixAt > pos) {
            if (this.prefixAt >= stop) return stop >= len ? this.done(false, len, beganAt) : this.pause(stop, beganAt);
            pos = this.prefixAt;
          }
        }
      }
      let rune = -1;
      let width = 0;
      if (pos < len) {
        rune = text.charCodeAt(pos);
        width = 1;
        if (rune >= 0xd800 && rune <= 0xdbff && pos + 1 < len) {
          const low = text.charCodeAt(pos + 1);
          if (low >= 0xdc00 && low <= 0xdfff) {
            rune = (rune - 0xd800) * 1024 + (low - 0xdc00) + 0x10000;
            width = 2;
          }
        }
      }
      if (!whole || pos === 0) this.add(this.runq, p.start, context(pos > 0 ? text.charCodeAt(pos - 1) : -1, pos < len ? text.charCodeAt(pos) : -1));
      const next = pos + width;
      const nextFlag = context(next > 0 ? text.charCodeAt(next - 1) : -1, next < len ? text.charCodeAt(next) : -1);
      const { runq, nextq } = this;
      const { ops, outs, insts } = p;
      for (let j = 0; j < runq.size; j++) {
        const pc = runq.dense[j]!;
        let ok = false;
        switch (ops[pc]) {
          case MATCH:
            if (whole && pos !== len) break;
            return this.done(true, pos, beganAt);
          case RUNE:
            ok = insts[pc]!.matchRune(rune);
            break;
          case RUNE1:
            ok = rune === insts[pc]!.runes[0];
            break;
          case RUNE_ANY:
            ok = true;
            break;
          case RUNE_ANY_NOT_NL:
            ok = rune !== 10;
            break;
          default:
            continue;
        }
        if (!ok) continue;
        const out = outs[pc]!;
        // Most instructions lead straight to a rune (a run of characters): no empty transitions to follow.
        if (ops[out]! >= RUNE) {
          const k = nextq.sparse[out]!;
          if (k >= nextq.size || nextq.dense[k] !== out) {
            nextq.sparse[out] = nextq.size;
            nextq.dense[nextq.size++] = out;
          }
        } else this.add(nextq, out, nextFlag);
      }
      runq.size = 0;
      if (width === 0) return this.done(false, pos, beganAt);
      pos = next;
      this.runq = nextq;
      this.nextq = runq;
      if (pos >= stop) return this.pause(pos, beganAt);
    }
  }

  private pause(pos: number, beganAt: number): undefined {
    this.read += pos - beganAt;
    this.pos = pos;
    return undefined;
  }

  private done(answer: boolean, pos: number, beganAt: number): boolean {
    this.read += Math.max(0, pos - beganAt);
    this.pos = pos;
    this.answer = answer;
    return answer;
  }

  /** Follows empty transitions from `pc` under `flag`, adding every instruction reached once (`Machine.add`). */
  private add(q: Threads, pc: number, flag: number): void {
    const { ops, outs, args } = this.p;
    const stack = this.stack;
    let top = 0;
    for (;;) {
      while (pc !== 0 && !q.has(pc)) {
        q.add(pc);
        switch (ops[pc]) {
          case FAIL:
            pc = 0;
            break;
          case ALT:
          case ALT_MATCH:
            stack[top++] = args[pc]!;
            pc = outs[pc]!;
            break;
          case EMPTY_WIDTH:
            pc = (args[pc]! & ~flag) === 0 ? outs[pc]! : 0;
            break;
          case NOP:
          case CAPTURE:
            pc = outs[pc]!;
            break;
          default:
            // A rune or a match: a thread, stepped by `advance`.
            pc = 0;
        }
      }
      if (top === 0) return;
      pc = stack[--top]!;
    }
  }
}
