import type { Condition } from './ast.ts';
import { compileLinearRegex, wildcardPattern, type LinearRegex } from './linear-regex.ts';

/*
 * The automata a condition runs (`regex_partial`, `regex_exact`: its pattern; `wildcard`: one per item),
 * compiled once per condition: the parser compiles them to judge them against the limits, and the
 * compiled condition runs the same objects rather than compiling again.
 */

const compiled = new WeakMap<Condition, LinearRegex[]>();

/** Whether a condition compares case-sensitively: `cs`, a `case` switch, or a query filter's equality. */
export function caseSensitive(c: Condition, kind: string): boolean {
  if (c.cs) return true;
  const sw = c.switches.find((w) => w.name === 'case');
  if (sw) return sw.arg === 'true';
  // Query filters compare ==, != and in case-sensitively (docs/filters.md#operators-what-match-does).
  return kind === 'query' && (c.op === '==' || c.op === '!=' || c.op === 'in');
}

export const usesAutomata = (c: Condition): boolean => c.op === 'regex_partial' || c.op === 'regex_exact' || c.op === 'wildcard';

/**
 * The condition's automata, compiled on first ask. `each` sees each one as it is compiled, so a caller
 * keeping a running total can refuse before the rest are built; `maxInstructions` refuses one pattern
 * (`RegexTooLarge`) before or after compiling.
 */
export function conditionAutomata(c: Condition, kind: string, opts: { maxInstructions?: number; each?: (re: LinearRegex) => void } = {}): LinearRegex[] {
  const known = compiled.get(c);
  if (known) {
    if (opts.each) known.forEach(opts.each);
    return known;
  }
  const out: LinearRegex[] = [];
  if (c.op === 'regex_partial' || c.op === 'regex_exact') {
    const re = compileLinearRegex((c.arg as { value: string }).value, { maxInstructions: opts.maxInstructions });
    opts.each?.(re);
    out.push(re);
  } else if (c.op === 'wildcard' && c.arg?.kind === 'list') {
    const cs = caseSensitive(c, kind);
    for (const item of c.arg.items) {
      // Many stars (`*a*a*a*b`) backtrack polynomially in a JavaScript RegExp; the automaton does not.
      const re = compileLinearRegex(wildcardPattern(item), { caseInsensitive: !cs, dotAll: true, maxInstructions: opts.maxInstructions });
      opts.each?.(re);
      out.push(re);
    }
  }
  compiled.set(c, out);
  return out;
}
