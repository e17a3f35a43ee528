import { describe, expect, it } from 'vitest';
import { ENDPOINTS, VERSIONS, answerSchemaOf, atLeast, createEngine, readParams, termsOf, type EndpointId, type VersionId } from '@sdp/core';
import { MemoryEventStore, seededIds } from '@sdp/core/kernel';
import { fc } from './arbitraries.ts';
import { paramsArb, shapedParamsArb } from './params-arbitraries.ts';

const served = VERSIONS.flatMap((v) => ENDPOINTS.filter((e) => e.forms.some((f) => atLeast(v.id, f.from))).map((e) => [e.id, v.id] as [EndpointId, VersionId]));

describe('valid parameters, generated from the schemas', () => {
  it('every endpoint of every version: what is generated reads through its schema', () => {
    for (const [endpoint, version] of served) {
      fc.assert(
        fc.property(paramsArb(endpoint, version), (p) => {
          expect(() => readParams(termsOf(endpoint, version).params, p as Record<string, unknown>)).not.toThrow();
        }),
        { numRuns: 15 },
      );
    }
  });

  it('the JSON Schema alone generates readable parameters often enough to filter on: the rules across fields refuse at most 9 in 10', () => {
    for (const [endpoint, version] of served) {
      const sample = fc.sample(shapedParamsArb(endpoint, version), { numRuns: 60, seed: 7 });
      const read = sample.filter((p) => termsOf(endpoint, version).params.safeParse(p).success).length;
      expect(read, `${version} ${endpoint}: ${read} of 60 read`).toBeGreaterThanOrEqual(6);
    }
  });

  it('random valid calls: every answer meets its endpoint’s answer schema for its status', async () => {
    const T0 = Date.parse('2026-03-01T12:00:00Z');
    const engine = createEngine({ store: new MemoryEventStore(), clock: { now: () => T0 }, ids: seededIds(5) });
    await engine.openAccount({ username: 'alice', api_key: 'alice-key-01', package: { credits_per_hour: 1e9, analyze_credits_per_hour: 1e9 } });
    const callArb = fc.constantFrom(...served.filter(([e]) => e !== 'ingest')).chain(([endpoint, version]) => paramsArb(endpoint, version).map((params) => ({ endpoint, version, params })));
    await fc.assert(
      fc.asyncProperty(callArb, async ({ endpoint, version, params }) => {
        const a = await engine.call({ version, endpoint, credentials: { username: 'alice', apiKey: 'alice-key-01' }, params: params as Record<string, unknown>, mediaType: 'application/json' });
        const schema = answerSchemaOf(endpoint, version, a.status);
        expect(schema, `${version} ${endpoint} answered ${a.status}`).not.toBeUndefined();
        if (schema === null) expect(a.body).toBeUndefined();
        else if (schema) expect(schema.safeParse(a.body).success, `${version} ${endpoint} ${a.status}: ${JSON.stringify(a.body)?.slice(0, 300)}`).toBe(true);
      }),
      { numRuns: 300 },
    );
  });
});
