import * as z from 'zod';
import type { EndpointId } from '../catalogue/endpoints.ts';
import type { VersionId } from '../catalogue/versions.ts';
import { ErrorAnswer, termsOf } from './contract.ts';

/** A JSON Schema (2020-12, as OpenAPI 3.1 reads it). */
export type JsonSchema = Record<string, unknown>;

/** What the wire carries after the spellings are read: the schema's output side, every type inlined. */
function toJson(schema: z.ZodType): JsonSchema {
  const { $schema: _, ...rest } = z.toJSONSchema(schema, { io: 'output', unrepresentable: 'any', reused: 'inline', cycles: 'ref' }) as JsonSchema;
  return rest;
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
export function paramsJsonSchema(id: EndpointId, version: VersionId): ParamsJsonSchema {
  const s = asRequest(toJson(termsOf(id, version).params)) as JsonSchema;
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

function openObject(s: JsonSchema): ParamsJsonSchema {
  const { additionalProperties: _, ...open } = s as JsonSchema & { properties?: Record<string, JsonSchema>; required?: string[] };
  return { ...open, properties: (s['properties'] as Record<string, JsonSchema> | undefined) ?? {} } as ParamsJsonSchema;
}

/** Each success answer's schema by status (`null`: no body), as the catalogue's codes where the terms name none. */
export function answerJsonSchemas(id: EndpointId, version: VersionId, catalogueCodes: readonly number[]): Record<number, JsonSchema | null> {
  const answers = termsOf(id, version).answers;
  const out: Record<number, JsonSchema | null> = {};
  const codes = Object.keys(answers).length > 0 ? Object.keys(answers).map(Number) : [...catalogueCodes];
  for (const code of codes) {
    const a = answers[code];
    out[code] = a ? toJson(a) : null;
  }
  return out;
}

export const errorJsonSchema = (): JsonSchema => toJson(ErrorAnswer);

/**
 * An example value that meets a JSON Schema: its own `examples` where it gives one, else the first
 * choice, the least bound, one item of a list and every property of an object. Deterministic, so a
 * document is the same each time it is generated.
 */
export function exampleOf(schema: JsonSchema | undefined, depth = 0): unknown {
  if (!schema || depth > 12) return null;
  if (Array.isArray(schema['examples']) && schema['examples'].length > 0) return schema['examples'][0];
  if ('const' in schema) return schema['const'];
  if (Array.isArray(schema['enum'])) return schema['enum'][0];
  for (const key of ['anyOf', 'oneOf', 'allOf'] as const) {
    const choices = schema[key];
    if (Array.isArray(choices) && choices.length > 0) {
      const firstNonNull = (choices as JsonSchema[]).find((c) => c['type'] !== 'null') ?? (choices[0] as JsonSchema);
      return exampleOf(firstNonNull, depth + 1);
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
      if (Array.isArray(schema['prefixItems'])) return (schema['prefixItems'] as JsonSchema[]).map((s) => exampleOf(s, depth + 1));
      return schema['items'] ? [exampleOf(schema['items'] as JsonSchema, depth + 1)] : [];
    }
    case 'object': {
      const props = (schema['properties'] ?? {}) as Record<string, JsonSchema>;
      return Object.fromEntries(Object.entries(props).map(([k, v]) => [k, exampleOf(v, depth + 1)]));
    }
    default:
      return null;
  }
}
