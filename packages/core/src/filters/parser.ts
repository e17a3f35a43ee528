import { BadRequest } from '../calls/errors.ts';
import type { Argument, Condition, Definition, Expr, FilterKind, Operator, Switch, TagRule } from './ast.ts';

export type { FilterKind };
import { OPERATORS, OPERATOR_SYNONYMS } from './ast.ts';
import { lex, lineAndColumn, parseError, type Token } from './lexer.ts';
import { RegexTooLarge, UnsupportedRegex } from './linear-regex.ts';
import { checkRegexBudget, FILTER_LIMITS, regexTooLarge } from './limits.ts';
import { conditionAutomata, usesAutomata } from './regex-programs.ts';
import { targetProblem } from './targets.ts';

/** Nesting deeper than this (brackets and `not`) is refused, as the original engine refused it. */
export const MAX_NESTING = 1000;

const OPERATOR_WORDS = new Set<string>([...OPERATORS.filter((o) => /^[a-z]/.test(o)), ...Object.keys(OPERATOR_SYNONYMS)]);
const RESERVED = new Set<string>(['and', 'or', 'not', 'tag', 'tags', 'return', 'stream', 'rule', 'cs', ...OPERATOR_WORDS]);
const SYMBOL_OPERATORS = new Set<string>(['==', '!=', '<', '>', '<=', '>=']);

const EXPECT_OPERATOR =
  'one of: an operator that can act on strings, integers or float types (==, !=, <, >, >=, <=), followed by a value;\n' +
  ' or a text operator (contains, contains_any, contains_all, contains_near, wildcard, substr, regex_partial, regex_exact, url_in), followed by a text value;\n' +
  ' or the "in" operator, followed by a list of comma separated strings or [integers];\n' +
  ' or a geo operator (geo_box, geo_radius, geo_polygon), followed by a text value;\n' +
  ' or the "exists" operator';
const EXPECT_CONDITION = 'a condition (a target such as interaction.content), "not", "stream" followed by a hash, or an opening bracket "("';
const EXPECT_TEXT = 'a text value in double quotes';
const EXPECT_HASH = 'a compiled filter hash (32 hexadecimal characters) in double quotes';
const HASH = /^[0-9a-fA-F]{32}$/;
const NAMESPACE = /^[\p{L}\d_-]+$/u;


export function parseDefinition(text: string, kind: FilterKind = 'definition'): Definition {
  return new Parser(text, lex(text), kind).definition();
}

class Parser {
  private i = 0;
  private depth = 0;

  constructor(
    private readonly text: string,
    private readonly tokens: Token[],
    private readonly kind: FilterKind,
  ) {}

  private get tok(): Token {
    return this.tokens[this.i]!;
  }
  private peek(k = 1): Token {
    return this.tokens[Math.min(this.i + k, this.tokens.length - 1)]!;
  }
  private fail(expecting: string, token: Token = this.tok): never {
    throw parseError(this.text, token.at, expecting);
  }
  private atEnd(): boolean {
    return this.tok.kind === 'eof';
  }
  private word(t: Token = this.tok): string {
    return t.kind === 'word' ? t.value.toLowerCase() : '';
  }
  private sym(value: string): void {
    if (this.tok.kind !== 'sym' || this.tok.value !== value) this.fail(`"${value}"`);
    this.i++;
  }
  private refuse(message: string, token: Token): never {
    const { line, column } = lineAndColumn(this.text, token.at);
    throw new BadRequest(`${message} (at line ${line} position ${column})`, { line, position: column });
  }

  definition(): Definition {
    if (this.atEnd()) this.fail(EXPECT_CONDITION);
    const first = this.word();
    const classifier = first === 'tag' || first.startsWith('tag.') || first === 'tags' || first === 'return';
    if (!classifier) {
      const body = this.expr();
      if (!this.atEnd()) this.fail('"and", "or" or the end of the filter');
      return { form: 'plain', tags: [], body };
    }
    if (this.kind === 'query') this.refuse('A query filter takes conditions only: tag rules and return blocks belong in a recording\'s definition', this.tok);
    const tags: TagRule[] = [];
    for (;;) {
      const w = this.word();
      if (w === 'return') {
        this.i++;
        this.sym('{');
        const body = this.expr();
        this.sym('}');
        if (!this.atEnd()) this.fail('the end of the definition after the return block');
        // `return { x }` with no tag rules is the plain filter x: one meaning, one hash.
        return tags.length === 0 ? { form: 'plain', tags, body } : { form: 'return', tags, body };
      }
      if (this.atEnd()) {
        if (tags.length === 0) this.fail(EXPECT_CONDITION);
        return { form: 'tags-only', tags, body: null };
      }
      if (w === 'tags') {
        this.i++;
        tags.push({ type: 'include', hash: this.hash() });
        continue;
      }
      if (w === 'tag' || w.startsWith('tag.')) {
        tags.push(this.tagRule());
        continue;
      }
      this.fail('a tag rule ("tag"), a tags inclusion ("tags") or a return block ("return")');
    }
  }

  private tagRule(): TagRule {
    const head = this.tok;
    const segments = head.value.split('.').slice(1);
    for (const s of segments) {
      if (!NAMESPACE.test(s) || /^\d+$/.test(s)) {
        this.refuse(`The tag namespace "${head.value}" is not valid: each part must be letters, digits, "_" or "-", and not only digits`, head);
      }
    }
    this.i++;
    const t = this.tok;
    let rule: TagRule;
    if (t.kind === 'string') {
      this.i++;
      if (t.value.length === 0) this.refuse('A tag name may not be empty', t);
      this.sym('{');
      rule = { type: 'tag', namespace: segments, name: t.value, body: this.expr() };
    } else if (t.kind === 'number') {
      if (segments.length === 0) this.refuse('A scoring rule needs a namespace (tag.<branch>.<class> <score>)', t);
      this.i++;
      this.sym('{');
      rule = { type: 'score', namespace: segments, score: this.number(t), body: this.expr() };
    } else {
      this.fail('a tag name in double quotes, or a score (a number) for a scoring rule');
    }
    this.sym('}');
    return rule;
  }

  private hash(): string {
    const t = this.tok;
    if (t.kind !== 'string' || !HASH.test(t.value)) this.fail(EXPECT_HASH);
    this.i++;
    return t.value.toLowerCase();
  }

  private nest(t: Token): void {
    if (++this.depth > MAX_NESTING) this.refuse(`maximum recursion depth of ${MAX_NESTING} has been reached`, t);
  }

  private expr(): Expr {
    const first = this.andExpr();
    if (this.word() !== 'or') return first;
    const items: Expr[] = [];
    push(items, first, 'or');
    while (this.word() === 'or') {
      this.i++;
      push(items, this.andExpr(), 'or');
    }
    return { type: 'or', items };
  }

  private andExpr(): Expr {
    const first = this.unary();
    if (this.word() !== 'and') return first;
    const items: Expr[] = [];
    push(items, first, 'and');
    while (this.word() === 'and') {
      this.i++;
      push(items, this.unary(), 'and');
    }
    return { type: 'and', items };
  }

  private unary(): Expr {
    if (this.word() === 'not') {
      const t = this.tok;
      this.i++;
      this.nest(t);
      const item = this.unary();
      this.depth--;
      return { type: 'not', item };
    }
    return this.primary();
  }

  private primary(): Expr {
    const t = this.tok;
    if (t.kind === 'sym' && t.value === '(') {
      this.i++;
      this.nest(t);
      const e = this.expr();
      this.depth--;
      this.sym(')');
      return e;
    }
    const w = this.word(t);
    if (w === 'stream' || w === 'rule') {
      this.i++;
      return { type: 'stream', hash: this.hash() };
    }
    if (t.kind !== 'word' || RESERVED.has(w)) this.fail(EXPECT_CONDITION);
    return this.condition();
  }

  private condition(): Condition {
    const targetToken = this.tok;
    const target = targetToken.value.toLowerCase();
    this.i++;
    let cs = false;
    if (this.word() === 'cs') {
      cs = true;
      this.i++;
    }
    const opToken = this.tok;
    let op: Operator;
    if (opToken.kind === 'sym' && SYMBOL_OPERATORS.has(opToken.value)) op = opToken.value as Operator;
    else if (opToken.kind === 'word' && OPERATOR_WORDS.has(this.word())) op = (OPERATOR_SYNONYMS[this.word()] ?? this.word()) as Operator;
    else this.fail(EXPECT_OPERATOR);
    this.i++;
    if (cs && !CASE_OPERATORS.has(op)) this.refuse(`The "cs" modifier does not apply to the ${op} operator`, opToken);
    const switches = this.switches(op);
    const argToken = this.tok;
    const arg = this.argument(op);
    const problem = targetProblem(target, this.kind);
    if (problem) this.refuse(problem, targetToken);
    if (this.kind === 'query' && (cs || !QUERY_OPERATORS.has(op))) {
      this.refuse(`The ${cs ? 'cs modifier' : `${op} operator`} is not available in a query filter`, opToken);
    }
    const cond: Condition = { type: 'cond', target, cs, op, switches, arg };
    if (usesAutomata(cond)) this.chargeAutomata(cond, argToken);
    return cond;
  }

  /** Instructions of the automata compiled so far: refused as soon as the budget is passed, so a definition
   * of thousands of large patterns costs at most the budget (and one pattern) to refuse. */
  private regexInstructions = 0;
  private chargeAutomata(c: Condition, t: Token): void {
    try {
      conditionAutomata(c, this.kind, {
        maxInstructions: FILTER_LIMITS.regexInstructions,
        each: (re) => {
          this.regexInstructions += re.instructions;
          checkRegexBudget(this.regexInstructions, true);
        },
      });
    } catch (e) {
      if (e instanceof RegexTooLarge) throw regexTooLarge(e.instructions, e.estimated);
      // Patterns run on RE2's linear-time automaton (the platform's engine too): what it cannot express
      // (backreferences, lookaround, repeat counts over 1000) is refused naming the construct, so a filter
      // that validates is a filter that runs.
      if (e instanceof UnsupportedRegex) this.refuse(`The regular expression is not valid on the linear-time regex engine (RE2 syntax): ${e.message}`, t);
      throw e;
    }
  }

  private switches(op: Operator): Switch[] {
    const t = this.tok;
    if (t.kind !== 'sym' || t.value !== '[' || this.peek().kind !== 'word') return [];
    this.i++;
    const out: Switch[] = [];
    for (;;) {
      const nameToken = this.tok;
      const name = this.word();
      if (name !== 'keep' && name !== 'drop' && name !== 'case') this.fail('a switch: keep(...), drop(...) or case(true|false)');
      if (name !== 'case' && op !== 'contains' && op !== 'contains_any' && op !== 'contains_near') {
        this.refuse(`The ${name} switch applies only to contains, contains_any and contains_near`, nameToken);
      }
      this.i++;
      this.sym('(');
      const a = this.tok;
      if (a.kind !== 'word' && a.kind !== 'string' && a.kind !== 'number') this.fail('the switch\'s value');
      const arg = name === 'case' ? a.value.toLowerCase() : a.value;
      if (name === 'case' && arg !== 'true' && arg !== 'false') this.fail('true or false', a);
      this.i++;
      this.sym(')');
      out.push({ name, arg });
      if (this.tok.kind === 'sym' && this.tok.value === ',') {
        this.i++;
        continue;
      }
      this.sym(']');
      return out;
    }
  }

  private argument(op: Operator): Argument | null {
    const t = this.tok;
    switch (op) {
      case 'exists':
        return null;
      case 'contains':
      case 'substr':
      case 'regex_partial':
      case 'regex_exact': {
        const value = this.string();
        if (value.length === 0) this.refuse(`The ${op} operator needs a non-empty value`, t);
        return { kind: 'string', value };
      }
      case 'contains_any':
      case 'contains_all':
      case 'wildcard':
      case 'url_in':
        return this.list(op, this.string(), t);
      case 'in':
        if (t.kind === 'sym' && t.value === '[') return this.ints();
        return this.list(op, this.string('a list of comma separated strings in double quotes, or [integers]'), t);
      case 'contains_near':
        return this.near(this.string(), t);
      case '==':
      case '!=':
        if (t.kind === 'number') {
          this.i++;
          return { kind: 'number', value: this.number(t) };
        }
        return { kind: 'string', value: this.string('a text value in double quotes or a number') };
      case '<':
      case '>':
      case '<=':
      case '>=':
        if (t.kind !== 'number') this.fail('a number');
        this.i++;
        return { kind: 'number', value: this.number(t) };
      case 'geo_box':
      case 'geo_radius':
      case 'geo_polygon':
        return this.geo(op, this.string(), t);
    }
  }

  /** A finite number; `-0` is read as 0 so the tree prints and reads back the same. */
  private number(t: Token): number {
    const n = Number(t.value);
    if (!Number.isFinite(n)) this.refuse(`The number ${t.value} is out of range`, t);
    return n === 0 ? 0 : n;
  }

  private string(expecting = EXPECT_TEXT): string {
    const t = this.tok;
    if (t.kind !== 'string') this.fail(expecting);
    this.i++;
    return t.value;
  }

  private ints(): Argument {
    this.sym('[');
    const values: number[] = [];
    for (;;) {
      const t = this.tok;
      if (t.kind !== 'number' || !/^-?\d+$/.test(t.value)) this.fail('an integer');
      values.push(this.number(t));
      this.i++;
      if (this.tok.kind === 'sym' && this.tok.value === ',') {
        this.i++;
        continue;
      }
      this.sym(']');
      return { kind: 'ints', values };
    }
  }

  private list(op: Operator, raw: string, t: Token): Argument {
    const items = splitList(raw);
    if (items.length === 0) this.refuse(`The ${op} operator needs at least one item`, t);
    if (op === 'wildcard') {
      for (const item of items) {
        if (item.startsWith('*') || item.startsWith('?')) this.refuse(`A wildcard item may not start with a wildcard: "${item}"`, t);
      }
    }
    return { kind: 'list', items };
  }

  private near(raw: string, t: Token): Argument {
    const colon = raw.lastIndexOf(':');
    const distance = colon < 0 ? NaN : Number(raw.slice(colon + 1).trim());
    if (!Number.isInteger(distance) || distance < 1 || !/^\s*\d+\s*$/.test(raw.slice(colon + 1))) {
      this.fail('a list of comma separated words, followed by a colon (:), followed by the number of words separation', t);
    }
    const words = splitList(raw.slice(0, colon));
    if (words.length < 2) this.refuse('The contains_near operator needs at least two words', t);
    if (words.some((w) => /\s/.test(w))) this.refuse('The words of contains_near may not contain spaces', t);
    return { kind: 'near', words, distance };
  }

  private geo(op: Operator, raw: string, t: Token): Argument {
    const parts = raw.split(':').map((p) => p.trim());
    const point = (p: string): [number, number] => {
      const m = /^(-?\d+(?:\.\d+)?)\s*,\s*(-?\d+(?:\.\d+)?)$/.exec(p);
      if (!m) this.fail('a point written as latitude,longitude', t);
      const lat = Number(m[1]);
      const lon = Number(m[2]);
      if (Math.abs(lat) > 90 || Math.abs(lon) > 180) this.refuse(`The point ${p} is outside latitude -90..90, longitude -180..180`, t);
      return [lat, lon];
    };
    if (op === 'geo_radius') {
      if (parts.length !== 2 || !/^\d+(?:\.\d+)?$/.test(parts[1]!)) this.fail('"latitude,longitude:radius in km"', t);
      return { kind: 'geo', points: [point(parts[0]!)], radius: Number(parts[1]) };
    }
    if (op === 'geo_box') {
      if (parts.length !== 2) this.fail('"top-left latitude,longitude:bottom-right latitude,longitude"', t);
      return { kind: 'geo', points: [point(parts[0]!), point(parts[1]!)] };
    }
    if (parts.length < 3) this.fail('at least three points "lat,lon:lat,lon:lat,lon"', t);
    if (parts.length > MAX_POLYGON_VERTICES) this.refuse(`geo_polygon limit: at most ${MAX_POLYGON_VERTICES} vertices (this one has ${parts.length})`, t);
    return { kind: 'geo', points: parts.map(point) };
  }
}

export const MAX_POLYGON_VERTICES = 32;

/** Operators the `cs` prefix makes case-sensitive. */
export const CASE_OPERATORS = new Set<Operator>(['contains', 'substr', 'contains_any', 'contains_all', 'contains_near', 'wildcard', '==', '!=']);

/** Operators an analysis query filter may use (docs/filters.md#operators-what-match-does, QF column). */
export const QUERY_OPERATORS = new Set<Operator>(['contains', 'contains_any', 'contains_all', 'contains_near', 'wildcard', 'exists', 'in', '==', '!=', '<', '>', '<=', '>=']);

function push(items: Expr[], e: Expr, type: 'and' | 'or'): void {
  if (e.type === type) items.push(...e.items);
  else items.push(e);
}

/** Splits a comma list: `\,` is a literal comma, items are trimmed, empty items dropped. */
export function splitList(raw: string): string[] {
  const out: string[] = [];
  let cur = '';
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i]!;
    if (c === '\\' && raw[i + 1] === ',') {
      cur += ',';
      i++;
    } else if (c === ',') {
      out.push(cur);
      cur = '';
    } else cur += c;
  }
  out.push(cur);
  return out.map((s) => s.trim()).filter((s) => s.length > 0);
}
