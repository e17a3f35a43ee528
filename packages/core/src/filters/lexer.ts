import { BadRequest } from '../calls/errors.ts';

export type TokenKind = 'word' | 'string' | 'number' | 'sym' | 'eof';

export interface Token {
  kind: TokenKind;
  /** Words as written; strings decoded (`\"` and `\\` only: other escapes belong to the operator). */
  value: string;
  /** Offset of the token's first character in the text. */
  at: number;
}

/**
 * Where an offset lies, counted only when an error needs it: the line is 1-based, the position is the
 * number of characters before it on its line. That is the recorded platform's convention:
 * `interaction.nonsense is not valid` fails "at line 1 position 21", where `is` begins.
 */
export function lineAndColumn(text: string, at: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < at && i < text.length; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: at - lineStart };
}

/** The platform's parse-error sentence, naming where the parser stopped and what it wanted there. */
export function parseError(text: string, at: number, expecting: string): BadRequest {
  const { line, column } = lineAndColumn(text, at);
  return new BadRequest(`We are unable to parse this stream. At line ${line} position ${column} we were expecting ${expecting}.`, {
    line,
    position: column,
  });
}

const isSpace = (c: number): boolean => c === 32 || (c >= 9 && c <= 13);
const isDigit = (c: number): boolean => c >= 48 && c <= 57;
const isAsciiWord = (c: number): boolean => (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || isDigit(c) || c === 95;
const LETTER = /\p{L}/u;
const isWordStart = (c: number): boolean => isAsciiWord(c) || (c > 127 && LETTER.test(String.fromCharCode(c)));
const isWordPart = (c: number): boolean => isWordStart(c) || c === 45 /* - */ || c === 46 /* . */;

const NUMBER = /-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

/**
 * Splits a definition into tokens. Comments (`// …` and `/* … *\/`) count as whitespace, so they never
 * reach the tree and never change the hash.
 */
export function lex(text: string): Token[] {
  const tokens: Token[] = [];
  const n = text.length;
  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (isSpace(c)) {
      i++;
      continue;
    }
    if (c === 47 /* / */ && text.charCodeAt(i + 1) === 47) {
      const end = text.indexOf('\n', i + 2);
      i = end < 0 ? n : end + 1;
      continue;
    }
    if (c === 47 && text.charCodeAt(i + 1) === 42 /* * */) {
      const end = text.indexOf('*/', i + 2);
      if (end < 0) throw parseError(text, i, 'the end of this comment (*/)');
      i = end + 2;
      continue;
    }
    if (c === 34 /* " */) {
      let out = '';
      let j = i + 1;
      let from = j;
      for (;;) {
        if (j >= n) throw parseError(text, i, 'a closing quote (") for this text value');
        const d = text.charCodeAt(j);
        if (d === 34) break;
        if (d === 92 /* \ */) {
          const e = text.charCodeAt(j + 1);
          if (e === 34 || e === 92) {
            out += text.slice(from, j) + text[j + 1];
            j += 2;
            from = j;
            continue;
          }
          j += 2;
          continue;
        }
        j++;
      }
      out += text.slice(from, j);
      tokens.push({ kind: 'string', value: out, at: i });
      i = j + 1;
      continue;
    }
    if (isDigit(c) || (c === 45 /* - */ && isDigit(text.charCodeAt(i + 1)))) {
      NUMBER.lastIndex = i;
      const m = NUMBER.exec(text);
      const end = i + m![0].length;
      if (c === 45 || end >= n || !isWordStart(text.charCodeAt(end))) {
        tokens.push({ kind: 'number', value: m![0], at: i });
        i = end;
        continue;
      }
    }
    if (isWordStart(c)) {
      let j = i + 1;
      while (j < n && isWordPart(text.charCodeAt(j))) j++;
      tokens.push({ kind: 'word', value: text.slice(i, j), at: i });
      i = j;
      continue;
    }
    const two = text.slice(i, i + 2);
    if (two === '==' || two === '!=' || two === '<=' || two === '>=') {
      tokens.push({ kind: 'sym', value: two, at: i });
      i += 2;
      continue;
    }
    if ('<>(){}[],:'.includes(text[i]!)) {
      tokens.push({ kind: 'sym', value: text[i]!, at: i });
      i++;
      continue;
    }
    throw parseError(text, i, 'a target, an operator, a value, a logical operator (and, or, not) or a bracket');
  }
  tokens.push({ kind: 'eof', value: '', at: n });
  return tokens;
}
