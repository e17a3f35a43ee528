import type * as z from 'zod';
import { BadRequest } from '../calls/errors.ts';
import { TO_ZOD, paramsReader } from './fast-read.ts';
import { MISSING } from './wire.ts';

/**
 * Reads a call's parameters through its schema: the values the handler receives, or a 400 that names
 * the first parameter at fault and the rule it breaks (`Missing param 'id'`, `page must be at least 1`).
 */
export function readParams<S extends z.ZodType>(schema: S, raw: Record<string, unknown>): z.output<S> {
  // Parameters in their usual spelling are read without zod (fast-read.ts): flat text fields at once,
  // others after the frozen ones' earlier reading is looked for, so frozen parameters are still answered
  // one frozen reading, whichever way it was made.
  const reading = paramsReader(schema);
  if (reading?.flat) {
    const fast = reading.read(raw);
    if (fast !== TO_ZOD) return fast as z.output<S>;
  }
  const frozen = deepFrozen(raw);
  if (frozen) {
    const known = readFrozen.get(raw)?.get(schema);
    if (known !== undefined) return known as z.output<S>;
  }
  const fast = reading && !reading.flat ? reading.read(raw) : TO_ZOD;
  const r = fast !== TO_ZOD ? { success: true as const, data: fast as z.output<S> } : schema.safeParse(raw);
  if (r.success) {
    if (frozen) {
      let bySchema = readFrozen.get(raw);
      if (!bySchema) readFrozen.set(raw, (bySchema = new WeakMap()));
      bySchema.set(schema, deepFreeze(r.data));
    }
    return r.data;
  }
  // Asked again with the inputs reported (a missing parameter is told apart by them): dear on every call,
  // so only on the way to a 400.
  const again = schema.safeParse(raw, { reportInput: true });
  throw new BadRequest(issueText((again.error ?? r.error).issues[0]!));
}

/**
 * One issue in the words of a 400: the parameter's path, then the rule (a rule written `: ...` follows
 * the path without a space); a rule about the parameters together (its path empty) stands alone.
 */
export function issueText(issue: z.core.$ZodIssue): string {
  const name = issue.path.map((k, i) => (typeof k === 'number' ? `[${k}]` : i === 0 ? String(k) : `.${String(k)}`)).join('');
  if (name === '') return issue.code === 'custom' ? issue.message.replace(/^: /, '') : 'The parameters must be a JSON object';
  if ((issue.code !== 'custom' && 'input' in issue && issue.input === undefined) || issue.message === MISSING) return `Missing param '${name}'`;
  return issue.message.startsWith(':') ? `${name}${issue.message}` : `${name} ${issue.message}`;
}

/**
 * What a schema read from parameters no one can change (deeply frozen: a simulated client sends the
 * same parameters with every call), frozen in turn. Reading is a pure function of the schema and the
 * values, so a second call with the same frozen object is answered the first one's reading; parameters
 * decoded from a request are never frozen, and are read every time.
 */
const readFrozen = new WeakMap<object, WeakMap<z.ZodType, unknown>>();

/** Whether `v` and everything it holds are frozen (a primitive is). */
function deepFrozen(v: unknown): boolean {
  if (typeof v !== 'object' || v === null) return true;
  if (!Object.isFrozen(v)) return false;
  for (const k of Object.keys(v)) if (!deepFrozen((v as Record<string, unknown>)[k])) return false;
  return true;
}

/** `v`, with everything it holds, frozen (a reading shared by calls must not be changed by one of them). */
function deepFreeze<T>(v: T): T {
  if (typeof v !== 'object' || v === null) return v;
  for (const k of Object.keys(v)) deepFreeze((v as Record<string, unknown>)[k]);
  return Object.isFrozen(v) ? v : Object.freeze(v);
}
