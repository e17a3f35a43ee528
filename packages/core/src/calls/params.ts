import { BadRequest } from './errors.ts';
import { checkJsonText } from './input-limits.ts';

/**
 * A call's parameters as they arrived, merged from the path, the query string and the body. Handlers
 * read them through their endpoint's schema (`paramsOf`, contract/params.ts), where the spellings real
 * clients send are read; this holds them until then, and for the few rules judged before the handler
 * (an identity's allowance reads the `service` named).
 */
export class Params {
  /** What the endpoint's schema read, once it has (`paramsOf`). */
  read: unknown = undefined;

  constructor(readonly raw: Record<string, unknown>) {}

  has(name: string): boolean {
    const v = this.raw[name];
    return v !== undefined && v !== null && v !== '';
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
