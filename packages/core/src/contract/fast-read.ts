import type * as z from 'zod';

/**
 * Parameters in their usual shape read without zod: every schema the wire's helpers build (wire.ts) can
 * carry a reader that answers what zod would answer for the values it recognises, and `TO_ZOD` for any
 * other (another spelling, an empty value, a refusal to word). Zod stays the reading of record: a reader
 * only ever takes a shortcut to the same output, and wire.spec.ts holds every schema of every version to
 * zod's answer.
 *
 * Readers are kept by the schema's definition, which `.meta()` and `.describe()` share with the schema
 * they copy; `.check()`, `.optional()` and the like make a new definition, so a schema with a rule added
 * after its reader was made never inherits that reader (`checked` in wire.ts adds a rule with its reader).
 */
export const TO_ZOD: unique symbol = Symbol('read by zod');

/** What a schema reads from a value, or `TO_ZOD`. */
export type Reader = (value: unknown) => unknown;

/** A schema's reader, and whether it reads flat text fields only (see `paramsReader`). */
export interface Reading {
  readonly read: Reader;
  readonly flat: boolean;
}

const READERS = new WeakMap<object, Reading | null>();

type Schema = z.core.$ZodType;

const defOf = (schema: Schema): object => schema._zod.def;

/**
 * Gives `schema` the reader `reader` (built by the helper that made it, from the same terms); `flat`: it
 * reads text fields of the top level only, and costs less than asking whether parameters are frozen.
 */
export function withReader<T extends Schema>(schema: T, reader: Reader | undefined, flat = false): T {
  if (reader) READERS.set(defOf(schema), { read: reader, flat });
  return schema;
}

/** The schema's reader: the one it was given, else one made from zod's own kinds of schema, else none. */
export function readerOf(schema: Schema): Reader | undefined {
  return readingOf(schema)?.read;
}

function readingOf(schema: Schema): Reading | undefined {
  const def = defOf(schema);
  let reading = READERS.get(def);
  if (reading === undefined) {
    // Marked first, so a schema that reaches itself (through `z.lazy`) has no reader rather than no end.
    READERS.set(def, null);
    const read = plainReader(def as PlainDef);
    reading = read ? { read, flat: false } : null;
    READERS.set(def, reading);
  }
  return reading ?? undefined;
}

let lastSchema: Schema | undefined;
let lastReading: Reading | undefined;

/** The reading of a call's parameters' schema (read.ts), if it has a reader. */
export function paramsReader(schema: Schema): Reading | undefined {
  // A server's calls mostly repeat one endpoint: its reader is found without a lookup.
  if (schema !== lastSchema) {
    lastReading = readingOf(schema);
    lastSchema = schema;
  }
  return lastReading;
}

/** What `schema` (a call's parameters) reads from `raw` when it has a reader that recognises them; else `undefined`. */
export function fastRead(schema: Schema, raw: Record<string, unknown>): Record<string, unknown> | undefined {
  const reader = readerOf(schema);
  if (reader === undefined) return undefined;
  const out = reader(raw);
  return out === TO_ZOD ? undefined : (out as Record<string, unknown>);
}

/** An object zod reads as a record of fields: not an array, and plain (its fields its own). */
export function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

/** The fields of an object schema with their readers, in the shape's order; `undefined` if one has none. */
export function fieldReaders(shape: Readonly<Record<string, Schema>>): [name: string, reader: Reader][] | undefined {
  const fields: [string, Reader][] = [];
  for (const name of Object.keys(shape)) {
    const reader = readerOf(shape[name]!);
    if (!reader) return undefined;
    fields.push([name, reader]);
  }
  return fields;
}

/** The parts of zod's definitions the plain readers look at. */
interface PlainDef {
  type: string;
  checks?: readonly unknown[];
  format?: string;
  coerce?: boolean;
  innerType?: Schema;
  defaultValue?: unknown;
  values?: readonly unknown[];
  entries?: Record<string, unknown>;
  shape?: Record<string, Schema>;
  catchall?: Schema;
  discriminator?: string;
  options?: readonly Schema[];
  getter?: () => Schema;
}

/**
 * Readers for zod's own schemas, where their reading is plain: only kinds whose every rule is known here,
 * and none with checks of its own (a string's length, an object's refinement). Anything else has none.
 */
function plainReader(def: PlainDef): Reader | undefined {
  if (def.checks !== undefined && def.checks.length > 0) return undefined;
  switch (def.type) {
    case 'string':
      return def.format === undefined && !def.coerce ? (v) => (typeof v === 'string' ? v : TO_ZOD) : undefined;
    case 'undefined':
      return (v) => (v === undefined ? undefined : TO_ZOD);
    case 'literal': {
      const values = def.values!;
      return (v) => (values.includes(v) ? v : TO_ZOD);
    }
    case 'enum': {
      const values = Object.values(def.entries!);
      if (!values.every((x) => typeof x === 'string')) return undefined;
      return (v) => (typeof v === 'string' && values.includes(v) ? v : TO_ZOD);
    }
    case 'optional': {
      // Absent is read without the inner schema, which need not have a reader of its own.
      const inner = readerOf(def.innerType!);
      return (v) => (v === undefined ? undefined : inner ? inner(v) : TO_ZOD);
    }
    case 'default': {
      const inner = readerOf(def.innerType!);
      // Each read gets its own copy of the default (zod's definition hands out a fresh one each time).
      return (v) => (v === undefined ? def.defaultValue : inner ? inner(v) : TO_ZOD);
    }
    case 'lazy':
      return readerOf(def.getter!());
    case 'object':
      return def.catchall === undefined ? objectReader(def.shape!) : undefined;
    case 'union':
      return def.discriminator === undefined ? undefined : choiceReader(def.discriminator, def.options!);
    default:
      return undefined;
  }
}

/** A `z.object` (unknown keys dropped): each field by its reader, in the shape's order, absent ones left out unless a default fills them. */
function objectReader(shape: Readonly<Record<string, Schema>>): Reader | undefined {
  const fields = fieldReaders(shape);
  if (!fields) return undefined;
  return (v) => {
    if (!isPlainObject(v)) return TO_ZOD;
    const out: Record<string, unknown> = {};
    for (let i = 0; i < fields.length; i++) {
      const [name, reader] = fields[i]!;
      const given = Object.hasOwn(v, name);
      // A field given as `undefined` is kept by zod as a key; rare enough to leave to it.
      if (given && v[name] === undefined) return TO_ZOD;
      const read = reader(given ? v[name] : undefined);
      if (read === TO_ZOD) return TO_ZOD;
      if (read !== undefined) out[name] = read;
    }
    return out;
  };
}

/** A discriminated union of objects: the option the discriminator's value names, read by its reader. */
function choiceReader(key: string, options: readonly Schema[]): Reader | undefined {
  const byValue = new Map<unknown, Reader | undefined>();
  for (const option of options) {
    const def = defOf(option) as PlainDef;
    const literal = def.shape?.[key] ? (defOf(def.shape[key]) as PlainDef) : undefined;
    if (def.type !== 'object' || literal?.type !== 'literal') return undefined;
    const reader = readerOf(option);
    for (const value of literal.values!) byValue.set(value, reader);
  }
  return (v) => {
    if (!isPlainObject(v)) return TO_ZOD;
    const reader = byValue.get(v[key]);
    return reader ? reader(v) : TO_ZOD;
  };
}
