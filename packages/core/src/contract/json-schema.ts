import * as z from 'zod';
import type { EndpointId } from '../catalogue/endpoints.ts';
import type { VersionId } from '../catalogue/versions.ts';
import { ErrorAnswer, termsOf } from './contract.ts';
import { REFUSED_PREFIX } from './wire.ts';

/** A JSON Schema (2020-12, as OpenAPI 3.1 reads it). */
export type JsonSchema = Record<string, unknown>;

/**
 * Where the named shapes go (`.meta({ id })` in `answers.ts` and on the nested requests): given a
 * `named` map, each is put there once, by its name, and referred to as `#/components/schemas/<name>`;
 * without one, it is written out where it is used (for readers that follow no references).
 */
export type NamedSchemas = Record<string, JsonSchema>;
export const COMPONENTS_PREFIX = '#/components/schemas/';
const DEFS_PREFIX = '#/$defs/';

/** What the wire carries after the spellings are read: the schema's output side. */
function toJson(schema: z.ZodType, named?: NamedSchemas, shape: (s: JsonSchema) => JsonSchema = (s) => s): JsonSchema {
  const { $schema: _, $defs, ...rest } = z.toJSONSchema(schema, { io: 'output', unrepresentable: 'any', reused: 'inline', cycles: 'ref' }) as JsonSchema;
  const defs = ($defs ?? {}) as NamedSchemas;
  if (!named) return shape(inlined(rest, defs) as JsonSchema);
  for (const [id, def] of Object.entries(defs)) {
    const body = shape(retarget(def) as JsonSchema);
    if (named[id] !== undefined && JSON.stringify(named[id]) !== JSON.stringify(body)) throw new Error(`Two shapes are named ${id}: give one another name`);
    named[id] = body;
  }
  return shape(retarget(rest) as JsonSchema);
}

function retarget(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(retarget);
  if (typeof v !== 'object' || v === null) return v;
  const out: JsonSchema = {};
  for (const [k, x] of Object.entries(v)) out[k] = k === '$ref' && typeof x === 'string' && x.startsWith(DEFS_PREFIX) ? COMPONENTS_PREFIX + x.slice(DEFS_PREFIX.length) : retarget(x);
  return out;
}

function inlined(v: unknown, defs: NamedSchemas, depth = 0): unknown {
  if (Array.isArray(v)) return v.map((x) => inlined(x, defs, depth));
  if (typeof v !== 'object' || v === null) return v;
  const o = v as JsonSchema;
  if (typeof o['$ref'] === 'string' && o['$ref'].startsWith(DEFS_PREFIX) && depth < 32) {
    const { $ref, ...siblings } = o;
    const def = defs[($ref as string).slice(DEFS_PREFIX.length)] ?? {};
    return { ...(inlined(def, defs, depth + 1) as JsonSchema), ...(inlined(siblings, defs, depth) as JsonSchema) };
  }
  const out: JsonSchema = {};
  for (const [k, x] of Object.entries(o)) out[k] = inlined(x, defs, depth);
  return out;
}

/** A named shape's body, where a schema refers to one in `named`. */
export function resolveRef(schema: JsonSchema, named: NamedSchemas): JsonSchema {
  const ref = schema['$ref'];
  if (typeof ref !== 'string' || !ref.startsWith(COMPONENTS_PREFIX)) return schema;
  const { $ref: _, ...siblings } = schema;
  return { ...resolveRef(named[ref.slice(COMPONENTS_PREFIX.length)] ?? {}, named), ...siblings };
}

/** The parameters' schema: `properties` by name, `required`, and `oneOf` where the terms depend on one of them. */
export type ParamsJsonSchema = JsonSchema & { properties: Record<string, JsonSchema>; required?: string[]; oneOf?: ParamsJsonSchema[] };

/**
 * The parameters of an endpoint in a version, as one object schema: `properties` by name, `required`.
 * Extra keys are tolerated on the wire (clients echo path parameters), so none is refused here. Where
 * the terms depend on one parameter (a task's `type`), each choice is in `oneOf`, and `properties` holds
 * every name of any choice (its schema the choices' own, `anyOf` where they differ), required where
 * every choice requires it.
 */
export function paramsJsonSchema(id: EndpointId, version: VersionId, named?: NamedSchemas): ParamsJsonSchema {
  const s = toJson(termsOf(id, version).params, named, (x) => asRequest(x) as JsonSchema);
  const choices = (s['oneOf'] ?? s['anyOf']) as JsonSchema[] | undefined;
  if (!choices) return openObject(s);
  const options = choices.map(openObject);
  const names = [...new Set(options.flatMap((o) => Object.keys(o.properties)))];
  const properties: Record<string, JsonSchema> = {};
  for (const name of names) {
    const kinds = [...new Map(options.flatMap((o) => (o.properties[name] ? [o.properties[name]] : [])).map((p) => [JSON.stringify(p), p])).values()];
    const consts = kinds.every((k) => 'const' in k && k['type'] === 'string') ? kinds.map((k) => k['const']) : undefined;
    properties[name] = kinds.length === 1 ? kinds[0]! : consts ? { type: 'string', enum: consts } : { anyOf: kinds };
  }
  const required = names.filter((n) => options.every((o) => o.required?.includes(n)));
  return { type: 'object', properties, ...(required.length > 0 ? { required } : {}), oneOf: options };
}

/**
 * The output side read as a request: a field with a default may be left out, and keys a schema does not
 * name are dropped rather than refused, at every depth.
 */
function asRequest(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(asRequest);
  if (typeof v !== 'object' || v === null) return v;
  const out: JsonSchema = {};
  for (const [k, x] of Object.entries(v)) if (!(k === 'additionalProperties' && x === false)) out[k] = asRequest(x);
  const props = out['properties'] as Record<string, JsonSchema> | undefined;
  if (props && Array.isArray(out['required'])) {
    const required = (out['required'] as string[]).filter((n) => !(props[n] && 'default' in props[n]));
    if (required.length > 0) out['required'] = required;
    else delete out['required'];
  }
  return out;
}

/**
 * Whether a parameter's schema is one a version refuses (`refused` in wire.ts): the parsing keeps it so
 * that a client sending it hears why, but a document of what the version takes leaves it out.
 */
export const isRefusedParam = (s: JsonSchema): boolean => typeof s['description'] === 'string' && s['description'].startsWith(REFUSED_PREFIX);

function openObject(s: JsonSchema): ParamsJsonSchema {
  const { additionalProperties: _, ...open } = s as JsonSchema & { properties?: Record<string, JsonSchema>; required?: string[] };
  return { ...open, properties: (s['properties'] as Record<string, JsonSchema> | undefined) ?? {} } as ParamsJsonSchema;
}

/** Each success answer's schema by status (`null`: no body), as the catalogue's codes where the terms name none. */
export function answerJsonSchemas(id: EndpointId, version: VersionId, catalogueCodes: readonly number[], named?: NamedSchemas): Record<number, JsonSchema | null> {
  const answers = termsOf(id, version).answers;
  const out: Record<number, JsonSchema | null> = {};
  const codes = Object.keys(answers).length > 0 ? Object.keys(answers).map(Number) : [...catalogueCodes];
  for (const code of codes) {
    const a = answers[code];
    out[code] = a ? toJson(a, named) : null;
  }
  return out;
}

export const errorJsonSchema = (named?: NamedSchemas): JsonSchema => toJson(ErrorAnswer, named);

/**
 * An example value that meets a JSON Schema: its own `examples` where it gives one, else the first
 * choice, the least bound, one item of a list and every property of an object. Deterministic, so a
 * document is the same each time it is generated.
 */
export function exampleOf(given: JsonSchema | undefined, depth = 0, named: NamedSchemas = {}): unknown {
  if (!given || depth > 12) return null;
  const schema = resolveRef(given, named);
  if (Array.isArray(schema['examples']) && schema['examples'].length > 0) return schema['examples'][0];
  if ('const' in schema) return schema['const'];
  if (Array.isArray(schema['enum'])) return schema['enum'][0];
  for (const key of ['anyOf', 'oneOf', 'allOf'] as const) {
    const choices = schema[key];
    if (Array.isArray(choices) && choices.length > 0) {
      const firstNonNull = (choices as JsonSchema[]).find((c) => c['type'] !== 'null') ?? (choices[0] as JsonSchema);
      return exampleOf(firstNonNull, depth + 1, named);
    }
  }
  const type = Array.isArray(schema['type']) ? (schema['type'] as string[]).find((t) => t !== 'null') : schema['type'];
  switch (type) {
    case 'string': {
      const min = typeof schema['minLength'] === 'number' ? schema['minLength'] : 0;
      return 'text'.padEnd(min, 'x');
    }
    case 'integer':
    case 'number':
      return typeof schema['minimum'] === 'number' && schema['minimum'] > 0 ? schema['minimum'] : typeof schema['maximum'] === 'number' && schema['maximum'] < 1 ? schema['maximum'] : 1;
    case 'boolean':
      return true;
    case 'null':
      return null;
    case 'array': {
      if (Array.isArray(schema['prefixItems'])) return (schema['prefixItems'] as JsonSchema[]).map((s) => exampleOf(s, depth + 1, named));
      return schema['items'] ? [exampleOf(schema['items'] as JsonSchema, depth + 1, named)] : [];
    }
    case 'object': {
      const props = (schema['properties'] ?? {}) as Record<string, JsonSchema>;
      // A field a version refuses, or one that must be left out, is not in the example.
      const given = Object.entries(props).filter(([, v]) => !/^(Refused|None)\b/.test(String(v['description'] ?? '')));
      return Object.fromEntries(given.map(([k, v]) => [k, exampleOf(v, depth + 1, named)]));
    }
    default:
      return null;
  }
}
