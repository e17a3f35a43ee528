import * as fc from 'fast-check';
import { termsOf, type EndpointId, type ParamsOf, type VersionId } from '@sdp/core';
import { paramsJsonSchema, type JsonSchema } from '@sdp/core/internal';

/**
 * Valid parameters of an endpoint in a version, generated from its parameter schema (core's contract,
 * as JSON Schema): every required parameter, any optional ones, each within its type, words and bounds;
 * of those, the ones the schema reads (rules across fields that JSON Schema cannot say, such as a
 * window that runs forward or a nested analysis's product of thresholds, are the schema's own).
 * Valid on the wire's shape, not against the account's state (an id may name nothing: a 404 is an answer).
 */
export function paramsArb<Id extends EndpointId>(endpoint: Id, version: VersionId): fc.Arbitrary<ParamsOf<Id>> {
  const schema = termsOf(endpoint, version).params;
  return shapedParamsArb(endpoint, version).filter((p) => schema.safeParse(p).success);
}

/** Parameters generated from the JSON Schema alone, before the rules across fields. */
export function shapedParamsArb<Id extends EndpointId>(endpoint: Id, version: VersionId): fc.Arbitrary<ParamsOf<Id>> {
  const schema = paramsJsonSchema(endpoint, version);
  const objects = schema.oneOf ?? [schema];
  return fc.oneof(...objects.map((o) => objectArb(o.properties, o.required ?? []))) as unknown as fc.Arbitrary<ParamsOf<Id>>;
}

function objectArb(properties: Record<string, JsonSchema>, requiredNames: readonly string[]): fc.Arbitrary<Record<string, unknown>> {
  const required = new Set(requiredNames);
  const model: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [name, s] of Object.entries(properties)) {
    const arb = valueArb(s, 0);
    if (arb) model[name] = arb;
  }
  return fc.record(model, { requiredKeys: [...required].filter((k) => k in model) });
}

/** A value meeting a JSON Schema; `undefined` for a schema no value meets (a refused parameter). */
function valueArb(s: JsonSchema, depth: number): fc.Arbitrary<unknown> | undefined {
  // A parameter a version refuses, a field that must be left out: no value meets them.
  if (typeof s['description'] === 'string' && /^(Refused|None)\b/.test(s['description'])) return undefined;
  if ('const' in s) return fc.constant(s['const']);
  if (Array.isArray(s['enum'])) return fc.constantFrom(...(s['enum'] as unknown[]));
  for (const key of ['anyOf', 'oneOf'] as const) {
    const choices = s[key];
    if (Array.isArray(choices)) {
      const arbs = (choices as JsonSchema[]).map((c) => valueArb(c, depth + 1)).filter((a): a is fc.Arbitrary<unknown> => a !== undefined);
      return arbs.length > 0 ? fc.oneof(...arbs) : undefined;
    }
  }
  switch (s['type']) {
    case 'string': {
      const pattern = typeof s['pattern'] === 'string' ? /^\^\[0-9a-f\]\{(\d+)\}\$$/.exec(s['pattern']) : null;
      if (pattern) return fc.string({ unit: fc.constantFrom(...'0123456789abcdef'), minLength: Number(pattern[1]), maxLength: Number(pattern[1]) });
      // Text whose rule the schema checks beyond its type (an analysis target): its examples meet it.
      if (Array.isArray(s['examples']) && s['examples'].length > 0) return fc.constantFrom(...(s['examples'] as unknown[]));
      const max = typeof s['maxLength'] === 'number' ? Math.min(s['maxLength'], 40) : 40;
      // Non-empty printable text: an empty value reads as none.
      return fc.string({ unit: fc.constantFrom(...'abcdefghij klmnopqrstuvwxyz0123456789_-'), minLength: 1, maxLength: max }).filter((x) => x.trim().length > 0);
    }
    case 'integer': {
      const min = typeof s['minimum'] === 'number' ? Math.max(s['minimum'], -1e9) : -1e9;
      const max = typeof s['maximum'] === 'number' ? Math.min(s['maximum'], 4_102_444_800) : 4_102_444_800;
      return fc.integer({ min, max });
    }
    case 'number':
      return fc.double({ min: 0, max: 1e6, noNaN: true });
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array': {
      if (Array.isArray(s['prefixItems'])) return fc.tuple(...(s['prefixItems'] as JsonSchema[]).map((x) => valueArb(x, depth + 1) ?? fc.constant(null)));
      const item = s['items'] ? valueArb(s['items'] as JsonSchema, depth + 1) : fc.constant(null);
      const max = typeof s['maxItems'] === 'number' ? Math.min(s['maxItems'], 4) : 4;
      const min = typeof s['minItems'] === 'number' ? s['minItems'] : 0;
      return item ? fc.array(item, { minLength: min, maxLength: Math.max(min, max) }) : undefined;
    }
    case 'object': {
      const props = (s['properties'] ?? {}) as Record<string, JsonSchema>;
      if (Object.keys(props).length > 0) {
        const model: Record<string, fc.Arbitrary<unknown>> = {};
        for (const [k, v] of Object.entries(props)) model[k] = valueArb(v, depth + 1) ?? fc.constant(null);
        return fc.record(model, { requiredKeys: ((s['required'] as string[] | undefined) ?? []).filter((k) => k in model) });
      }
      // A free object (settings): a few plain fields.
      return depth > 3 ? fc.constant({}) : fc.dictionary(fc.constantFrom('a', 'b', 'format', 'name'), fc.oneof(fc.string({ maxLength: 8 }), fc.integer(), fc.boolean()), { maxKeys: 3 });
    }
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}
