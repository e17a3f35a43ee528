import { fc, test } from '@fast-check/vitest';
import { paramsArb } from '@sdp/testing';
import { describe, expect, it } from 'vitest';
import { ENDPOINTS, type EndpointId } from '../catalogue/endpoints.ts';
import { VERSIONS, atLeast, type VersionId } from '../catalogue/versions.ts';
import { analysisRequestSchema } from './analysis-request.ts';
import { termsOf } from './contract.ts';
import { fastRead, readerOf } from './fast-read.ts';
import { issueText, readParams } from './read.ts';

const served = VERSIONS.flatMap((v) => ENDPOINTS.filter((e) => e.forms.some((f) => atLeast(v.id, f.from))).map((e) => [e.id, v.id] as [EndpointId, VersionId]));

/** Values a client may put anywhere: other spellings, empty values, wrong types, bounds' edges. */
const ODD_VALUES: unknown[] = ['', null, undefined, 0, -1, 1.5, -0, 2 ** 53, 201, '12', ' 7 ', 'x', 'DESC', 'True', true, 'true', [], ['a'], {}, '{"a":1}', '[1]', 'fb.author.age', 'freqDist', 'timeSeries', 'strategy'];

type Mutation = { path: number; value: unknown; json: boolean; drop: boolean };

/** Every object inside `v` (itself included) with its keys: where a mutation may land. */
function places(v: unknown, out: [Record<string, unknown>, string][] = []): [Record<string, unknown>, string][] {
  if (typeof v !== 'object' || v === null) return out;
  for (const k of Object.keys(v)) {
    out.push([v as Record<string, unknown>, k]);
    places((v as Record<string, unknown>)[k], out);
  }
  return out;
}

/** `base` with each mutation applied: a value replaced by an odd one, dropped, or sent as its JSON text. */
function mutated(base: unknown, mutations: Mutation[]): Record<string, unknown> {
  const raw = structuredClone(base) as Record<string, unknown>;
  for (const m of mutations) {
    const all = places(raw);
    if (all.length === 0) break;
    const [obj, key] = all[m.path % all.length]!;
    if (m.drop) delete obj[key];
    // A copy of the odd value: placed as it is, a later mutation could write into the shared `[]` or
    // `{}` of ODD_VALUES, even the object itself (a cycle, seen with seed -467525380).
    else obj[key] = m.json && typeof obj[key] === 'object' ? JSON.stringify(obj[key]) : structuredClone(m.value);
  }
  return raw;
}

const mutationArb = fc.record({ path: fc.nat(), value: fc.constantFrom(...ODD_VALUES), json: fc.boolean(), drop: fc.boolean() });

/** What readParams answers: the reading, or the 400's message. */
const answer = (schema: Parameters<typeof readParams>[0], raw: Record<string, unknown>): unknown => {
  try {
    return readParams(schema, raw);
  } catch (e) {
    return (e as Error).message;
  }
};

describe('parameters read without zod', () => {
  it('every schema of every version: a fast reading is zod’s reading, key for key in its order; whatever zod refuses is left to zod and worded by it', () => {
    for (const [endpoint, version] of served) {
      const schema = termsOf(endpoint, version).params;
      fc.assert(
        fc.property(paramsArb(endpoint, version), fc.array(mutationArb, { maxLength: 3 }), (base, mutations) => {
          const raw = mutated(base, mutations);
          const fast = fastRead(schema, raw);
          const zod = schema.safeParse(raw);
          if (fast !== undefined) {
            expect(zod.success, `${version} ${endpoint}: ${JSON.stringify(raw)} read fast but refused by zod`).toBe(true);
            expect(fast).toStrictEqual(zod.data);
            expect(JSON.stringify(fast)).toBe(JSON.stringify(zod.data));
          }
          if (!zod.success) {
            expect(fast).toBeUndefined();
            expect(answer(schema, raw)).toBe(issueText(schema.safeParse(raw, { reportInput: true }).error!.issues[0]!));
          }
        }),
        { numRuns: 40 },
      );
    }
  });

  test.prop([fc.integer({ min: 1, max: 200 }), fc.constantFrom('fb.author.age', 'fb.author.gender', 'interaction.tags'), fc.option(fc.integer({ min: 1, max: 200 }), { nil: undefined }), fc.option(fc.string({ maxLength: 30 }), { nil: undefined })])(
    'an analysis request as clients usually send it (the analysis as an object, numbers, a filter) is read fast, as zod reads it',
    (threshold, target, childThreshold, filter) => {
      const parameters = { analysis_type: 'freqDist', parameters: { target, threshold }, ...(childThreshold ? { child: { analysis_type: 'freqDist', parameters: { target: 'fb.author.gender', threshold: childThreshold } } } : {}) };
      const raw = { parameters, start: 1_700_000_000, end: 1_700_003_600, ...(filter ? { filter } : {}) };
      const zod = analysisRequestSchema.safeParse(raw);
      const fast = fastRead(analysisRequestSchema, raw);
      if (zod.success) {
        expect(fast).toBeDefined();
        expect(fast).toStrictEqual(zod.data);
        expect(JSON.stringify(fast)).toBe(JSON.stringify(zod.data));
      } else expect(fast).toBeUndefined();
    },
  );

  it('the rules across fields still refuse, in zod’s words: a window that runs backward, thresholds whose product is over the limit', () => {
    const schema = termsOf('tasks.create', '1.5').params;
    const task = (parameters: unknown) => ({ service: 'facebook', name: 'n', subscription_id: 's', parameters });
    const freq = (target: string, threshold: number, child?: unknown) => ({ analysis_type: 'freqDist', parameters: { target, threshold }, ...(child ? { child } : {}) });
    expect(answer(schema, task({ parameters: freq('fb.author.age', 5), start: 20, end: 10 }))).toBe('parameters: Start cannot be after end');
    const deep = freq('fb.author.age', 200, freq('fb.author.gender', 200, freq('fb.author.location', 3)));
    expect(fastRead(schema, task({ parameters: deep }))).toBeUndefined();
    expect(answer(schema, task({ parameters: deep }))).toMatch(/product of nested thresholds is 120000, over the limit of 80000/);
    expect(answer(schema, task({ parameters: freq('fb.author.age', 0) }))).toBe('parameters.parameters.parameters.threshold must be at least 1');
  });

  it('an own __proto__ key, a class instance or an empty value is left to zod', () => {
    const schema = termsOf('insight.get', '1.5').params;
    const usual = { service: 'facebook', id: 'a'.repeat(32), page: 2, order_by: 'name' };
    expect(fastRead(schema, usual)).toStrictEqual(schema.parse(usual));
    expect(fastRead(schema, JSON.parse(`{"__proto__": {"per_page": 5}, ${JSON.stringify(usual).slice(1)}`))).toBeUndefined();
    expect(fastRead(schema, Object.assign(new (class Params {})(), usual) as unknown as Record<string, unknown>)).toBeUndefined();
    expect(fastRead(schema, { ...usual, order_dir: '' })).toBeUndefined();
    const timeSeries = { parameters: { analysis_type: 'timeSeries', parameters: { interval: 'day', span: 2 } } };
    expect(fastRead(analysisRequestSchema, timeSeries)).toStrictEqual(analysisRequestSchema.parse(timeSeries));
  });

  it('a schema with a rule added after it was built does not inherit the reader of the schema it was built from', () => {
    const plain = termsOf('core.validate', '1.5').params;
    expect(readerOf(plain)).toBeDefined();
    expect(readerOf(plain.check(() => undefined))).toBeUndefined();
    expect(readerOf(plain.meta({ description: 'the same terms' }))).toBe(readerOf(plain));
  });
});
