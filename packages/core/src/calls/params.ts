import { BadRequest } from './errors.ts';
import { MAX_FLATTENED_KEYS, MAX_PARAM_JSON_DEPTH, checkJsonDepth, checkJsonText } from './input-limits.ts';

/**
 * Reads a call's parameters as real clients send them (docs/clients.md#how-parameters-travel): numbers and booleans may arrive
 * as strings, nested values as JSON text or flattened `prefix.key` entries, lists as comma strings.
 * Every reader answers 400 naming the parameter when a value cannot be read.
 */
export class Params {
  constructor(readonly raw: Record<string, unknown>) {}

  has(name: string): boolean {
    const v = this.raw[name];
    return v !== undefined && v !== null && v !== '';
  }

  /** A string; `undefined` when absent or empty (clients send empty optionals, docs/clients.md#how-parameters-travel). */
  string(name: string, opts: { max?: number } = {}): string | undefined {
    const v = this.raw[name];
    if (v === undefined || v === null || v === '') return undefined;
    if (typeof v === 'number' || typeof v === 'boolean') return String(v);
    if (typeof v !== 'string') throw new BadRequest(`${name} must be a string`);
    if (opts.max !== undefined && v.length > opts.max) throw new BadRequest(`${name} must be at most ${opts.max} characters`);
    return v;
  }

  requireString(name: string, opts: { max?: number } = {}): string {
    const v = this.string(name, opts);
    if (v === undefined) throw new BadRequest(`Missing param '${name}'`);
    return v;
  }

  int(name: string, opts: { min?: number; max?: number } = {}): number | undefined {
    return wholeNumber(name, this.raw[name], opts);
  }

  /** A time as the wire writes it (whole epoch seconds, not negative), in the milliseconds used inside. */
  epochMs(name: string): number | undefined {
    const s = this.int(name, { min: 0 });
    return s === undefined ? undefined : s * 1000;
  }

  requireInt(name: string, opts: { min?: number; max?: number } = {}): number {
    const v = this.int(name, opts);
    if (v === undefined) throw new BadRequest(`Missing param '${name}'`);
    return v;
  }

  bool(name: string): boolean | undefined {
    const v = this.raw[name];
    if (v === undefined || v === null || v === '') return undefined;
    if (typeof v === 'boolean') return v;
    if (v === 1 || v === '1' || v === 'true' || v === 'True') return true;
    if (v === 0 || v === '0' || v === 'false' || v === 'False') return false;
    throw new BadRequest(`${name} must be 1, 0, true or false`);
  }

  /** A JSON object: an object, JSON text of one, or flattened `name.key` entries. */
  object(name: string): Record<string, unknown> | undefined {
    const v = this.raw[name];
    if (v === undefined || v === null || v === '') {
      const prefix = `${name}.`;
      let found: Record<string, unknown> | undefined;
      let keys = 0;
      for (const [k, val] of Object.entries(this.raw)) {
        if (!k.startsWith(prefix)) continue;
        if (++keys > MAX_FLATTENED_KEYS) throw new BadRequest(`${name} has more than the limit of ${MAX_FLATTENED_KEYS} flattened keys`);
        const path = k.slice(prefix.length).split('.', MAX_PARAM_JSON_DEPTH + 1);
        if (path.length > MAX_PARAM_JSON_DEPTH) throw new BadRequest(`${name} nests deeper than the limit of ${MAX_PARAM_JSON_DEPTH} levels`);
        checkJsonDepth(name, val, path.length);
        found ??= {};
        setPath(found, path, val);
      }
      return found;
    }
    const parsed = typeof v === 'string' ? parseJson(name, v) : v;
    if (!isJsonObject(parsed)) throw new BadRequest(`${name} must be a JSON object`);
    if (typeof v !== 'string') checkJsonDepth(name, parsed);
    return parsed;
  }

  /** A list: an array, JSON text of one, or a comma-separated string. */
  list(name: string): unknown[] | undefined {
    const v = this.raw[name];
    if (v === undefined || v === null || v === '') return undefined;
    if (Array.isArray(v)) {
      checkJsonDepth(name, v);
      return v;
    }
    if (typeof v === 'string') {
      const t = v.trim();
      if (t.startsWith('[')) {
        const parsed = parseJson(name, t);
        if (!Array.isArray(parsed)) throw new BadRequest(`${name} must be a list`);
        return parsed;
      }
      return t.split(',').map((s) => s.trim()).filter((s) => s.length > 0);
    }
    throw new BadRequest(`${name} must be a list`);
  }

  stringList(name: string): string[] | undefined {
    const l = this.list(name);
    if (l === undefined) return undefined;
    if (!l.every((x) => typeof x === 'string')) throw new BadRequest(`${name} must be a list of strings`);
    return l as string[];
  }
}

/** A JSON object: not null, not a list. */
export const isJsonObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A whole number from a number or a numeric string; `undefined` when absent or empty; else 400 naming `where`. */
export function wholeNumber(where: string, v: unknown, opts: { min?: number; max?: number } = {}): number | undefined {
  if (v === undefined || v === null || v === '') return undefined;
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^\s*-?\d+\s*$/.test(v) ? Number(v) : NaN;
  if (!Number.isSafeInteger(n)) throw new BadRequest(`${where} must be a whole number`);
  if (opts.min !== undefined && n < opts.min) throw new BadRequest(`${where} must be at least ${opts.min}`);
  if (opts.max !== undefined && n > opts.max) throw new BadRequest(`${where} must be at most ${opts.max}`);
  return n;
}

/** JSON text a client sent as a parameter; 400 naming the parameter when it is not JSON. */
export function parseJson(name: string, text: string): unknown {
  checkJsonText(name, text);
  try {
    return JSON.parse(text);
  } catch {
    throw new BadRequest(`${name} must be valid JSON`);
  }
}

function setPath(target: Record<string, unknown>, path: string[], value: unknown): void {
  let node = target;
  for (let i = 0; i < path.length - 1; i++) {
    const key = path[i]!;
    if (key === '__proto__' || key === 'constructor' || key === 'prototype') return;
    const next = Object.hasOwn(node, key) ? node[key] : undefined;
    if (typeof next !== 'object' || next === null || Array.isArray(next)) node[key] = {};
    node = node[key] as Record<string, unknown>;
  }
  const last = path[path.length - 1]!;
  if (last === '__proto__' || last === 'constructor' || last === 'prototype') return;
  node[last] = value;
}
