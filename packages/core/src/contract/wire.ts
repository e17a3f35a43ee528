import * as z from 'zod';
import { MAX_FLATTENED_KEYS, MAX_PARAM_JSON_DEPTH, jsonDepthProblem, jsonTextProblem } from '../calls/input-limits.ts';
import { TO_ZOD, fieldReaders, isPlainObject, readerOf, withReader, type Reader } from './fast-read.ts';

/**
 * The parameter types of the wire, as real clients spell them (docs/clients.md#how-parameters-travel), each a zod schema whose
 * preprocessing is the only place a spelling is read: numbers as digit strings, booleans as
 * `1`/`0`/`true`/`false`/`True`/`False`, nested objects as JSON text or flattened `name.key` entries,
 * lists as JSON text or comma strings, and an empty value as no value. What a schema says after the
 * preprocessing (the type, the bounds, the words) is what OpenAPI documents and handlers receive.
 *
 * A custom issue's message is the rule without the parameter's name: `issueText` puts the name in front.
 *
 * Each helper also gives its schema a reader of the usual spelling (fast-read.ts): the same terms, checked
 * directly, with anything else left to zod.
 */

/** The spellings a parameter of this kind also accepts, for the documents. */
const LENIENT = 'x-sdp-lenient';

type Coerce = (value: unknown, ctx: z.core.$RefinementCtx) => unknown;
const lenient = <T extends z.ZodType>(coerce: Coerce, inner: T, spellings: string) =>
  z.preprocess(coerce, inner).meta({ [LENIENT]: spellings });

const DIGITS = /^\s*-?\d+\s*$/;

/** A rule's text that `issueText` reads as a missing parameter (an empty list of ids is none). */
export const MISSING = 'is missing';

/** Text; a number or boolean a client sent is read as its text. */
export function text(opts: { max?: number; min?: number; pattern?: RegExp; patternText?: string } = {}) {
  let s = z.string({ error: 'must be a string' });
  if (opts.min !== undefined) s = s.min(opts.min, { error: `must be at least ${opts.min} characters` });
  if (opts.max !== undefined) s = s.max(opts.max, { error: `must be at most ${opts.max} characters` });
  if (opts.pattern) s = s.regex(opts.pattern, { error: opts.patternText ?? `must match ${opts.pattern.source}` });
  const schema = lenient((v) => (typeof v === 'number' || typeof v === 'boolean' ? String(v) : v), s, 'numbers and booleans are read as their text');
  const { min, max, pattern } = opts;
  if (min === undefined && max === undefined && !pattern) return withReader(schema, anyText);
  return withReader(schema, (v) => {
    if (typeof v !== 'string' || (min !== undefined && v.length < min) || (max !== undefined && v.length > max)) return TO_ZOD;
    if (pattern) pattern.lastIndex = 0;
    return !pattern || pattern.test(v) ? v : TO_ZOD;
  });
}

/** The reader of `text()` with no rule beyond being text. */
const anyText: Reader = (v) => (typeof v === 'string' ? v : TO_ZOD);

/**
 * The fields of a shape whose every field is `text()` (or `text().optional()`), with whether each is
 * required: such parameters (a filter's `csdl`, nearly every validate and compile) get a reader of their
 * own, a plain loop, as they are most of a server's calls.
 */
function textFieldsOf(shape: z.ZodRawShape): [name: string, required: boolean][] | undefined {
  const fields: [string, boolean][] = [];
  for (const name of Object.keys(shape)) {
    const field = shape[name]!;
    if (readerOf(field) === anyText) fields.push([name, true]);
    else if (field instanceof z.ZodOptional && readerOf(field.unwrap() as z.ZodType) === anyText) fields.push([name, false]);
    else return undefined;
  }
  return fields;
}

/** Text fields read as they are when each is a non-empty string or absent (a required one present). */
function textFieldsReader(fields: readonly [string, boolean][]): Reader {
  return (raw) => {
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return TO_ZOD;
    const out: Record<string, unknown> = {};
    for (let i = 0; i < fields.length; i++) {
      const [name, required] = fields[i]!;
      const v = Object.hasOwn(raw, name) ? (raw as Record<string, unknown>)[name] : undefined;
      if (typeof v === 'string' && v !== '') out[name] = v;
      else if (v !== undefined || required) return TO_ZOD;
    }
    return out;
  };
}

/** A lower-case hexadecimal id of `length` characters (a hash, a subscription or query id). */
export const hex = (length: number, what = `${length} hex characters`) =>
  text({ pattern: new RegExp(`^[0-9a-f]{${length}}$`), patternText: `must be ${what}` }).meta({ examples: ['0123456789abcdef0123456789abcdef01234567'.slice(0, length)] });

/** A whole number, from a JSON number or a digit string. */
export function whole(opts: { min?: number; max?: number } = {}) {
  let s = z.int({ error: 'must be a whole number' });
  if (opts.min !== undefined) s = s.min(opts.min, { error: `must be at least ${opts.min}` });
  if (opts.max !== undefined) s = s.max(opts.max, { error: `must be at most ${opts.max}` });
  const { min = Number.MIN_SAFE_INTEGER, max = Number.MAX_SAFE_INTEGER } = opts;
  return withReader(
    lenient((v) => (typeof v === 'string' && DIGITS.test(v) ? Number(v) : v), s, 'digit strings'),
    (v) => (typeof v === 'number' && Number.isSafeInteger(v) && v >= min && v <= max ? v : TO_ZOD),
  );
}

/** A time as the wire writes it: whole Unix seconds, not negative. */
export const epoch = () => whole({ min: 0 }).meta({ description: 'Unix seconds', examples: [1516139814] });

/** A boolean: also `1`/`0`, `true`/`false`, `True`/`False`, as text or numbers. */
export function flag() {
  const TRUE = new Set<unknown>([1, '1', 'true', 'True']);
  const FALSE = new Set<unknown>([0, '0', 'false', 'False']);
  const schema = lenient((v) => (TRUE.has(v) ? true : FALSE.has(v) ? false : v), z.boolean({ error: 'must be 1, 0, true or false' }), '1/0, true/false, True/False');
  return withReader(schema, (v) => (typeof v === 'boolean' ? v : TO_ZOD));
}

/** One of a fixed set of words; `caseless` reads the value in lower case first. */
export function word<const W extends readonly [string, ...string[]]>(words: W, opts: { caseless?: boolean; message?: string } = {}) {
  const e = z.enum(words, { error: opts.message ?? `is invalid; valid values are: ${words.join(',')}` });
  if (!opts.caseless) return e;
  const schema = lenient((v) => (typeof v === 'string' ? v.toLowerCase() : v), e, 'any letter case');
  return withReader(schema, (v) => (typeof v === 'string' && (words as readonly string[]).includes(v) && v === v.toLowerCase() ? v : TO_ZOD));
}

/**
 * A JSON value that may also arrive as JSON text (bounded in length and depth before it is parsed);
 * `notJson` is the rule a text that is not JSON breaks.
 */
export function jsonValue<T extends z.ZodType>(inner: T, opts: { notJson?: string } = {}) {
  const read = readerOf(inner);
  const schema = lenient(
    (v, ctx) => {
      const parsed = typeof v === 'string' ? jsonText(v, ctx, opts.notJson) : v;
      if (parsed === undefined) return typeof v === 'string' ? z.NEVER : v;
      const deep = jsonDepthProblem(parsed);
      if (deep) {
        ctx.addIssue({ code: 'custom', message: deep, input: v });
        return z.NEVER;
      }
      return parsed;
    },
    inner,
    'JSON text of the value',
  );
  // The value itself, not its text, within the depth limit: read as the inner schema reads it.
  return withReader(schema, read && ((v) => (typeof v === 'string' || jsonDepthProblem(v) !== undefined ? TO_ZOD : read(v))));
}

/** A JSON object: an object, or JSON text of one (flattened `name.key` entries are folded by `wireParams`). */
export const jsonObject = () => jsonValue(z.record(z.string(), z.unknown(), { error: 'must be a JSON object' })).meta({ [LENIENT]: 'JSON text of the object, or flattened `name.key` entries' });

/** A list: an array, JSON text of one, or a comma-separated string (items trimmed, empty ones dropped). */
export function list<T extends z.ZodType>(item: T, opts: { max?: number; min?: number } = {}) {
  let a = z.array(item, { error: 'must be a list' });
  if (opts.min !== undefined) a = a.min(opts.min, { error: MISSING });
  if (opts.max !== undefined) a = a.max(opts.max, { error: `must have at most ${opts.max} items` });
  return lenient(
    (v, ctx) => {
      if (typeof v !== 'string') {
        const deep = Array.isArray(v) ? jsonDepthProblem(v) : undefined;
        if (deep) {
          ctx.addIssue({ code: 'custom', message: deep, input: v });
          return z.NEVER;
        }
        return v;
      }
      const t = v.trim();
      if (!t.startsWith('[')) return t.split(',').map((s) => s.trim()).filter((s) => s.length > 0);
      const parsed = jsonText(t, ctx);
      return parsed === undefined ? z.NEVER : parsed;
    },
    a,
    'JSON text of the list, or a comma-separated string',
  );
}

/**
 * A parameter that a version no longer takes: naming it is a 400 with `message` (a breaking change,
 * visible in the schemas of the versions that refuse it).
 */
/** What a refused parameter's description begins with: how the JSON Schema, which has no word for it, tells one. */
export const REFUSED_PREFIX = 'Refused: ';
export const refused = (message: string) => z.undefined({ error: message }).meta({ description: `${REFUSED_PREFIX}${message}` });

/**
 * The parameters of one endpoint: the object the handler receives. An empty value (`''`, `null`) is no
 * value (clients send empty optionals); keys the schema does not name are dropped (clients echo path
 * parameters and other extras); `flattened` names objects that may arrive as `name.key` entries.
 */
export function wireParams<S extends z.ZodRawShape>(shape: S, opts: { flattened?: readonly (keyof S & string)[]; keepNull?: readonly (keyof S & string)[] } = {}) {
  const schema = z.preprocess(wireReading(opts), z.object(shape));
  const texts = opts.flattened?.length ? undefined : textFieldsOf(shape);
  if (texts) return withReader(schema, textFieldsReader(texts), true);
  const fields = fieldReaders(shape);
  return withReader(schema, fields && ((raw) => readFields(fields, opts.flattened ?? [], raw)));
}

/**
 * The fields of the wire's parameters in their usual shape: an absent field is absent (so is one given
 * as `undefined`), and any field given empty or `null` (dropped or kept by the reading), or absent where
 * it may arrive as flattened `name.key` entries, is left to zod.
 */
function readFields(fields: readonly [string, Reader][], folded: readonly string[], raw: unknown): unknown {
  // An own `__proto__` key would become the prototype of the reading's copy: zod's way.
  if (!isPlainObject(raw) || Object.hasOwn(raw, '__proto__')) return TO_ZOD;
  const out: Record<string, unknown> = {};
  for (let i = 0; i < fields.length; i++) {
    const [name, reader] = fields[i]!;
    const v = Object.hasOwn(raw, name) ? raw[name] : undefined;
    if (v === '' || v === null || (v === undefined && folded.length > 0 && folded.includes(name))) return TO_ZOD;
    const read = reader(v);
    if (read === TO_ZOD) return TO_ZOD;
    if (read !== undefined) out[name] = read;
  }
  return out;
}

/**
 * The parameters of an endpoint whose terms depend on one of them (`key`): one object per value, the
 * value `fallback` when none is given, a value of none of them refused with the word list. Read as
 * `wireParams` reads, then by the object of its value, so each value's terms are documented apart.
 *
 * Read by zod, with no reader of the usual spelling: `tasks.create` is the one such endpoint, and a
 * reader of it, though it read a task in about a third of zod's time, put the simulator's first day into a
 * slower state of V8's heap, several per cent slower in all (docs/performance.md, "The simulator
 * row, parameters of nested shapes without zod"). The task's analysis request is read by its reader
 * when the task runs.
 */
export function wireChoice<K extends string, const O extends readonly [z.ZodObject, ...z.ZodObject[]]>(
  key: K,
  fallback: string,
  options: O,
  opts: { flattened?: readonly string[]; keepNull?: readonly string[] } = {},
) {
  const read = wireReading(opts);
  const values = options.map((o) => (o.shape as Record<string, z.ZodType>)[key]!).flatMap((s) => [...((s as z.ZodLiteral<string>).values ?? [])]);
  return z.preprocess((raw, ctx) => {
    const out = read(raw, ctx);
    if (typeof out !== 'object' || out === null || Array.isArray(out)) return out;
    const o = out as Record<string, unknown>;
    const value = o[key] ?? fallback;
    if (!values.includes(value as string)) {
      ctx.addIssue({ code: 'custom', message: `is invalid; valid values are: ${values.join(',')}`, path: [key], input: o[key] });
      return z.NEVER;
    }
    return o[key] === value ? o : { ...o, [key]: value };
  }, z.discriminatedUnion(key, options));
}

/**
 * `schema` with the rules `checks` add, which its reader applies in turn: a value any of them finds
 * fault with is left to zod, to word the refusal.
 */
export function checked<T extends z.ZodType>(schema: T, ...checks: ((payload: z.core.ParsePayload<z.output<T>>) => void)[]): T {
  const read = readerOf(schema);
  return withReader(
    schema.check(...checks),
    read &&
      ((v) => {
        const value = read(v);
        if (value === TO_ZOD) return TO_ZOD;
        const payload: z.core.ParsePayload<z.output<T>> = { value: value as z.output<T>, issues: [] };
        for (const check of checks) check(payload);
        return payload.issues.length === 0 ? value : TO_ZOD;
      }),
  );
}

/**
 * `inner`, with `guard` first: a guard words the refusal of some values better than `inner` would, and
 * passes every other value on as it is. It refuses only values `inner` refuses too, so the reader is
 * `inner`'s.
 */
export function guarded<T extends z.ZodType>(guard: (value: unknown, ctx: z.core.$RefinementCtx) => unknown, inner: T) {
  return withReader(z.preprocess(guard, inner), readerOf(inner));
}

/** `inner`, with each of `none` (`null`, an empty text) read as no value. */
export function noneAs<T extends z.ZodType>(none: readonly unknown[], inner: T) {
  const read = readerOf(inner);
  return withReader(
    z.preprocess((v) => (none.includes(v) ? undefined : v), inner),
    read && ((v) => read(none.includes(v) ? undefined : v)),
  );
}

function wireReading(opts: { flattened?: readonly string[]; keepNull?: readonly string[] }) {
  const folded = opts.flattened ?? [];
  const nullable = new Set<string>(opts.keepNull ?? []);
  return (raw: unknown, ctx: z.core.$RefinementCtx): unknown => {
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return raw;
    if (folded.length === 0 && !hasEmpty(raw as Record<string, unknown>, nullable)) return raw;
    const out: Record<string, unknown> = {};
    for (const k in raw) {
      if (!Object.hasOwn(raw, k)) continue;
      const v = (raw as Record<string, unknown>)[k];
      if (v === '' || v === undefined || (v === null && !nullable.has(k))) continue;
      out[k] = v;
    }
    for (const name of folded) {
      if (out[name] !== undefined) continue;
      const nested = unflatten(name, out, ctx);
      if (nested !== undefined) out[name] = nested;
    }
    return out;
  };
}

/** Whether any value is one the reading drops (most calls send none: their object is read as it is). */
function hasEmpty(raw: Record<string, unknown>, nullable: ReadonlySet<string>): boolean {
  for (const k in raw) {
    const v = raw[k];
    if (v === '' || v === undefined || (v === null && !nullable.has(k))) return true;
  }
  return false;
}

/** `name.a.b` entries folded into `{ a: { b } }`; at most `MAX_FLATTENED_KEYS` of them, no deeper than the limit. */
function unflatten(name: string, raw: Record<string, unknown>, ctx: z.core.$RefinementCtx): Record<string, unknown> | undefined {
  const prefix = `${name}.`;
  let found: Record<string, unknown> | undefined;
  let keys = 0;
  for (const k in raw) {
    if (!k.startsWith(prefix)) continue;
    if (++keys > MAX_FLATTENED_KEYS) {
      ctx.addIssue({ code: 'custom', message: `has more than the limit of ${MAX_FLATTENED_KEYS} flattened keys`, path: [name], input: raw });
      return undefined;
    }
    const path = k.slice(prefix.length).split('.', MAX_PARAM_JSON_DEPTH + 1);
    const value = raw[k];
    if (path.length > MAX_PARAM_JSON_DEPTH || jsonDepthProblem(value, path.length)) {
      ctx.addIssue({ code: 'custom', message: `nests deeper than the limit of ${MAX_PARAM_JSON_DEPTH} levels`, path: [name], input: raw });
      return undefined;
    }
    found ??= {};
    setPath(found, path, value);
  }
  return found;
}

const UNSAFE_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

function setPath(target: Record<string, unknown>, path: string[], value: unknown): void {
  let node = target;
  for (let i = 0; i < path.length - 1; i++) {
    const key = path[i]!;
    if (UNSAFE_KEYS.has(key)) return;
    const next = Object.hasOwn(node, key) ? node[key] : undefined;
    if (typeof next !== 'object' || next === null || Array.isArray(next)) node[key] = {};
    node = node[key] as Record<string, unknown>;
  }
  const last = path[path.length - 1]!;
  if (!UNSAFE_KEYS.has(last)) node[last] = value;
}

/** JSON text a client sent in a parameter: bounded in length and depth before it is parsed. */
function jsonText(text: string, ctx: z.core.$RefinementCtx, notJson = 'must be valid JSON'): unknown {
  const problem = jsonTextProblem(text);
  if (problem) {
    ctx.addIssue({ code: 'custom', message: problem, input: text });
    return undefined;
  }
  try {
    return JSON.parse(text);
  } catch {
    ctx.addIssue({ code: 'custom', message: notJson, input: text });
    return undefined;
  }
}

export { LENIENT };
