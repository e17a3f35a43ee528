import { BadRequest } from '../calls/errors.ts';
import { utf8Length } from '../calls/utf8.ts';
import type { Definition, Expr } from './ast.ts';
import { conditionAutomata, usesAutomata } from './regex-programs.ts';

/** docs/contract.md#filter-and-analysis-limits: every limit a filter text is judged against, in one place. */
export const FILTER_LIMITS = {
  /** Bytes of UTF-8 text per definition (1 MB). */
  textBytes: 1024 * 1024,
  /** AND/OR per definition: 999 allowed, the 1,000th refused. */
  logicalOperators: 999,
  /** Tag and scoring rules per definition, local or included. */
  tags: 10_000,
  /** Analysis query filter: logical operators. */
  queryLogicalOperators: 30,
  /** Analysis query filter: arguments of any one condition (list items). */
  queryArguments: 100,
  /**
   * Instructions one regular expression or wildcard item may compile to. Matching costs text × program,
   * and re2js programs grow with repeat counts (`a.{900}b` is 904, `[a-z]{1000}` 1,002, `.{0,1000}x`
   * 2,003); real patterns are tens of instructions (`(?i)\b(iphone|ipad)\s*\d+` is 18).
   */
  regexInstructions: 2_000,
  /**
   * Instructions of every regular expression and wildcard item of a definition together: tag rules and
   * return block, included definitions counted each time they are named (each use runs them again). The
   * work one interaction costs a recording is at most its text's length times this: a 4 KB interaction
   * against a definition at the budget is about 16 M instruction steps (tens of ms; `npm run bench regex`).
   * A handful of real patterns is a few hundred; 2,000 rules of `a.{900}b` were 1.8 M and held the
   * process for a minute per ingestion.
   */
  regexBudget: 4_000,
} as const;

/**
 * Matching work (`WorkMeter`: every operator's characters or tokens read × what it looks for, and
 * `CONDITION_WORK` a test) after which a caller matching a batch gives the event loop a turn, between
 * filters or inside one, a long pattern match included (`matchInTurns`): 500,000 units, a few
 * milliseconds of text operators or patterns on the machines measured. With
 * 1 M, another account's call waited up to 80–160 ms behind one 64 KiB ingestion matched against 110
 * filters of 1,000 conditions; with this, 35–65 ms (`bench/matching-latency.ts`, the 2-core machine
 * loaded by other work).
 */
export const WORK_PER_TURN = 500_000;

/** One pattern over `regexInstructions` (`figure` is re2js's count, or the bound read from its text). */
export function regexTooLarge(figure: number, estimated: boolean): BadRequest {
  return new BadRequest(
    `Regular expression size limit: a regular expression or wildcard item may compile to at most ${FILTER_LIMITS.regexInstructions} instructions; this one compiles to ${estimated ? 'up to ' : ''}${figure}`,
    { limit: 'regex size' },
  );
}

/** The definition's automata together over `regexBudget`. */
export function checkRegexBudget(instructions: number, partial = false): void {
  if (instructions <= FILTER_LIMITS.regexBudget) return;
  throw new BadRequest(
    `Regular expression budget: the regular expressions and wildcard items of a filter definition (included definitions counted each time they are named) may compile to at most ${FILTER_LIMITS.regexBudget} instructions in all; this one compiles to ${partial ? 'at least ' : ''}${instructions}`,
    { limit: 'regex budget' },
  );
}

/** Refused before parsing, so an oversized text costs nothing more. */
export function checkTextSize(text: string): void {
  // Two or more bytes per character would need this many characters; cheaper to check length first.
  if (text.length <= FILTER_LIMITS.textBytes / 3) return;
  const bytes = utf8Length(text);
  if (bytes > FILTER_LIMITS.textBytes) {
    throw new BadRequest(`Filter size limit: a filter definition may be at most 1 MB (${FILTER_LIMITS.textBytes} bytes of text); this one is ${bytes} bytes`, {
      limit: 'text size',
    });
  }
}

/** What the definition holds, for the limits and the cost. */
export interface FilterCounts {
  logicalOperators: number;
  conditions: number;
  /** Local tag and scoring rules (included ones are added by whoever resolves the inclusion). */
  tagRules: number;
  /** The most arguments any one condition has. */
  maxArguments: number;
  /** Instructions of the definition's own automata (regular expressions, wildcard items). */
  regexInstructions: number;
  /** The definitions it names (`stream`, `tags`), once per place that names them. */
  namedDefinitions: string[];
}

export function countDefinition(d: Definition, kind: string = 'definition'): FilterCounts {
  const c: FilterCounts = { logicalOperators: 0, conditions: 0, tagRules: 0, maxArguments: 0, regexInstructions: 0, namedDefinitions: [] };
  const walk = (e: Expr): void => {
    switch (e.type) {
      case 'and':
      case 'or':
        c.logicalOperators += e.items.length - 1;
        for (const x of e.items) walk(x);
        return;
      case 'not':
        walk(e.item);
        return;
      case 'stream':
        c.conditions++;
        c.namedDefinitions.push(e.hash);
        return;
      case 'cond': {
        c.conditions++;
        // The parser compiled these already (and judged them); this reads what it kept.
        if (usesAutomata(e)) for (const re of conditionAutomata(e, kind)) c.regexInstructions += re.instructions;
        const a = e.arg;
        const n = !a ? 0 : a.kind === 'list' ? a.items.length : a.kind === 'ints' ? a.values.length : a.kind === 'near' ? a.words.length : 1;
        if (n > c.maxArguments) c.maxArguments = n;
      }
    }
  };
  for (const r of d.tags) {
    if (r.type === 'include') {
      c.namedDefinitions.push(r.hash);
      continue;
    }
    c.tagRules++;
    walk(r.body);
  }
  if (d.body) walk(d.body);
  return c;
}

export function checkDefinitionLimits(c: FilterCounts, includedTagRules = 0, includedRegexInstructions = 0): void {
  if (c.logicalOperators > FILTER_LIMITS.logicalOperators) {
    throw new BadRequest(
      `Logical operator limit: a filter definition may use at most ${FILTER_LIMITS.logicalOperators} logical operators (AND, OR); this one uses ${c.logicalOperators}`,
      { limit: 'logical operators' },
    );
  }
  const tags = c.tagRules + includedTagRules;
  if (tags > FILTER_LIMITS.tags) {
    throw new BadRequest(`Tag limit: a filter definition may hold at most ${FILTER_LIMITS.tags} tag or scoring rules, local or included; this one holds ${tags}`, {
      limit: 'tags',
    });
  }
  checkRegexBudget(c.regexInstructions + includedRegexInstructions);
}

export function checkQueryLimits(c: FilterCounts): void {
  if (c.logicalOperators > FILTER_LIMITS.queryLogicalOperators) {
    throw new BadRequest(
      `Query filter limit: an analysis query filter may use at most ${FILTER_LIMITS.queryLogicalOperators} logical operators (AND, OR); this one uses ${c.logicalOperators}`,
      { limit: 'query logical operators' },
    );
  }
  if (c.maxArguments > FILTER_LIMITS.queryArguments) {
    throw new BadRequest(
      `Query filter limit: each condition of an analysis query filter may have at most ${FILTER_LIMITS.queryArguments} arguments; one has ${c.maxArguments}`,
      { limit: 'query arguments' },
    );
  }
}
