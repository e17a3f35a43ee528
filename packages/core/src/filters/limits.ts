import { BadRequest } from '../calls/errors.ts';
import { utf8Length } from '../calls/utf8.ts';
import type { Definition, Expr } from './ast.ts';

/** Seed §8.2 and decisions §8: every limit a filter text is judged against, in one place. */
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
} as const;

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
}

export function countDefinition(d: Definition): FilterCounts {
  const c: FilterCounts = { logicalOperators: 0, conditions: 0, tagRules: 0, maxArguments: 0 };
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
        return;
      case 'cond': {
        c.conditions++;
        const a = e.arg;
        const n = !a ? 0 : a.kind === 'list' ? a.items.length : a.kind === 'ints' ? a.values.length : a.kind === 'near' ? a.words.length : 1;
        if (n > c.maxArguments) c.maxArguments = n;
      }
    }
  };
  for (const r of d.tags) {
    if (r.type === 'include') continue;
    c.tagRules++;
    walk(r.body);
  }
  if (d.body) walk(d.body);
  return c;
}

export function checkDefinitionLimits(c: FilterCounts, includedTagRules = 0): void {
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
