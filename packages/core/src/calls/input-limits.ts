import { BadRequest } from './errors.ts';

/**
 * Names every plain JavaScript object answers to. A caller's id, hash, service or source used as a key
 * must never reach them: `byId['constructor']` is a function, and writing `tokens['__proto__']` replaces
 * an object's prototype. States keep plain objects (they are snapshotted as JSON), so these names are
 * refused where a call enters, before anything is charged or read.
 */
export const PROTOTYPE_NAMES: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype', 'toString', 'valueOf', 'hasOwnProperty', 'isPrototypeOf', 'propertyIsEnumerable', 'toLocaleString', '__defineGetter__', '__defineSetter__', '__lookupGetter__', '__lookupSetter__']);

/** The parameters whose values are used as keys: ids, hashes, services, sources, types, sort keys. */
const KEY_POSITIONS = [
  'id',
  'ids',
  'hash',
  'service',
  'source_id',
  'source_type',
  'subscription_id',
  'historics_id',
  'historic_id',
  'playback_id',
  'identity_id',
  'resource_ids',
  'output_type',
  'type',
  'action',
  'order_by',
] as const;

/** Each key position's rank: the first in `KEY_POSITIONS` order is the one a refusal names. */
const KEY_RANK: ReadonlyMap<string, number> = new Map(KEY_POSITIONS.map((name, i) => [name, i]));

/** The first key-position parameter whose value (or one of whose list items) is a prototype name. */
export function prototypeKeyParam(params: Record<string, unknown>): { name: string; value: string } | undefined {
  // Over the call's own few parameters rather than every key position: most calls carry none of them.
  let found: { name: string; value: string } | undefined;
  let rank: number = KEY_POSITIONS.length;
  // for-in with an own check: no array of the keys is built for the usual call, which has none of them.
  for (const name in params) {
    if (!Object.hasOwn(params, name)) continue;
    const r = KEY_RANK.get(name);
    if (r === undefined || r >= rank) continue;
    const value = prototypeNameIn(params[name]);
    if (value !== undefined) {
      found = { name, value };
      rank = r;
    }
  }
  return found;
}

/** The prototype name a key-position value is or holds (a comma or JSON list of ids, or an array). */
function prototypeNameIn(v: unknown): string | undefined {
  if (typeof v === 'string') {
    if (PROTOTYPE_NAMES.has(v.trim())) return v;
    if (v.includes(',') || v.includes('"')) for (const part of v.split(/[",[\]\s]+/)) if (PROTOTYPE_NAMES.has(part)) return part;
  } else if (Array.isArray(v)) {
    for (const x of v) if (typeof x === 'string' && PROTOTYPE_NAMES.has(x)) return x;
  }
  return undefined;
}

/** A value read by key from a plain object, own properties only: never an inherited built-in. */
export function own<T>(record: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(record, key) ? record[key] : undefined;
}

/** JSON carried inside a parameter nests no deeper than a request body may (docs/contract.md#bodies-and-parameters). */
export const MAX_PARAM_JSON_DEPTH = 64;
/** A parameter's JSON text is at most this long; bodies are bounded by the HTTP layer already. */
export const MAX_PARAM_JSON_CHARS = 1024 * 1024;
/** Flattened `name.key.sub` entries: at most this many for one parameter. */
export const MAX_FLATTENED_KEYS = 1000;

/** What is wrong with JSON text a client sent, by the limits (the rule, without the parameter's name); `undefined` when within. */
export function jsonTextProblem(text: string): string | undefined {
  if (text.length > MAX_PARAM_JSON_CHARS) return `is over the limit of ${MAX_PARAM_JSON_CHARS} characters of JSON`;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92) i++;
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 || c === 91) {
      if (++depth > MAX_PARAM_JSON_DEPTH) return TOO_DEEP;
    } else if (c === 125 || c === 93) depth--;
  }
  return undefined;
}

const TOO_DEEP = `nests deeper than the limit of ${MAX_PARAM_JSON_DEPTH} levels`;

/** Whether a value that arrived already parsed (a JSON body, a library caller's object) nests within the limit. */
export function jsonDepthProblem(value: unknown, depth = 0): string | undefined {
  return depthWithin(value, depth) ? undefined : TOO_DEEP;
}

function depthWithin(value: unknown, depth: number): boolean {
  if (typeof value !== 'object' || value === null) return true;
  if (depth >= MAX_PARAM_JSON_DEPTH) return false;
  if (Array.isArray(value)) return value.every((x) => depthWithin(x, depth + 1));
  for (const k in value) if (Object.hasOwn(value, k) && !depthWithin((value as Record<string, unknown>)[k], depth + 1)) return false;
  return true;
}

/** Refuses JSON text deeper or longer than the limits, before it is parsed: deep values cost stack. */
export function checkJsonText(name: string, text: string): void {
  const problem = jsonTextProblem(text);
  if (problem) throw new BadRequest(`${name} ${problem}`);
}

/** The same depth limit for a value that arrived already parsed (a JSON body, or a library caller's object). */
export function checkJsonDepth(name: string, value: unknown, depth = 0): void {
  const problem = jsonDepthProblem(value, depth);
  if (problem) throw new BadRequest(`${name} ${problem}`);
}

/**
 * What a resource stores of a caller's settings (a push subscription's `output_params`, a managed
 * source's `parameters`, `resources` and `auth`, a task's `parameters`): at most this much JSON each,
 * after any merge with what was stored before. Real settings are a few hundred characters; the bound
 * keeps a stored resource, a page of them and a replayed answer small whatever a tenant sends.
 */
export const MAX_STORED_JSON_CHARS = 32 * 1024;

/** The JSON length of a value that arrived parsed (the caller's object, bounded by the body limit). */
export function jsonChars(value: unknown): number {
  return JSON.stringify(value)?.length ?? 0;
}

/** Refuses a stored setting over `MAX_STORED_JSON_CHARS` of JSON, naming it. */
export function checkStoredJson(name: string, value: unknown, max: number = MAX_STORED_JSON_CHARS): void {
  const chars = jsonChars(value);
  if (chars > max) throw new BadRequest(`${name} is over the limit of ${max} characters of JSON (${chars})`);
}
