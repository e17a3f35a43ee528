import { RE2JS, RE2JSException } from 're2js';

/**
 * Tenants' regular expressions run on RE2's automaton (re2js, pure JavaScript): matching time grows with
 * the text's length times the pattern's size, never exponentially, so no pattern one account writes can
 * stall the process for the others. The platform ran RE2 too, so this is also the dialect it accepted.
 */
export interface LinearRegex {
  /** Whether the pattern occurs anywhere in the text (`regex_partial`). */
  find(text: string): boolean;
  /** Whether the pattern spans the whole text (`regex_exact`). */
  whole(text: string): boolean;
}

/** A pattern the engine cannot express; the message names the construct (`\1`, `(?=`, `{1001}`). */
export class UnsupportedRegex extends Error {}

export function compileLinearRegex(pattern: string, options: { caseInsensitive?: boolean; dotAll?: boolean } = {}): LinearRegex {
  const flags = (options.caseInsensitive ? RE2JS.CASE_INSENSITIVE : 0) | (options.dotAll ? RE2JS.DOTALL : 0);
  let re: RE2JS;
  try {
    re = RE2JS.compile(pattern, flags);
  } catch (error) {
    if (error instanceof RE2JSException) throw new UnsupportedRegex(describe(error.message));
    throw error;
  }
  return { find: (text) => re.test(text), whole: (text) => re.testExact(text) };
}

/** re2js says `error parsing regexp: invalid escape sequence: \`\1\``; the user needs the last part. */
function describe(message: string): string {
  const detail = message.replace(/^error parsing regexp:\s*/, '');
  if (/invalid escape sequence: `\\[1-9]/.test(detail)) return `${detail} (backreferences are not supported)`;
  if (/`\(\?[=!]|`\(\?<[=!]/.test(detail)) return `${detail} (lookaround is not supported)`;
  return detail;
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
