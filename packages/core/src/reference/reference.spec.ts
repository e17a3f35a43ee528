import { describe, expect, it } from 'vitest';
import { fc, test } from '@fast-check/vitest';
import type { EndpointId } from '../catalogue/endpoints.ts';
import { VERSIONS, atLeast, type VersionId } from '../catalogue/versions.ts';
import { resolvePath } from '../catalogue/routes.ts';
import { MemoryEventStore } from '../kernel/memory-store.ts';
import { seededIds, type Clock } from '../kernel/ports.ts';
import { createEngine } from '../platform.ts';
import { compileFilter, readTarget } from '../filters/index.ts';
import { targetProblem } from '../filters/targets.ts';
import { firehoseBetween } from '../firehose/synthetic-interactions.ts';
import { LINKEDIN_REFERENCE_SETS, referenceSet } from './reference-sets.ts';

const T0 = Date.parse('2026-04-01T12:00:00Z');
const creds = { username: 'alice', apiKey: 'alice-key-0001' };

async function setup() {
  const clock: Clock = { now: () => T0 };
  const engine = createEngine({ store: new MemoryEventStore(), clock, ids: seededIds(3) });
  await engine.openAccount({ username: 'alice', api_key: creds.apiKey });
  const call = (endpoint: EndpointId, params: Record<string, unknown>, version: VersionId = '1.5') => engine.call({ version, endpoint, credentials: creds, params });
  return { engine, call };
}

const SERVED_FROM: VersionId = '1.5';
const served = VERSIONS.filter((v) => atLeast(v.id, SERVED_FROM)).map((v) => v.id);
const before = VERSIONS.filter((v) => !atLeast(v.id, SERVED_FROM)).map((v) => v.id);

describe('reference data through engine.call, in every version that serves it', () => {
  it.each(served)('the list in %s: 200 with the 15 sets of 1.5 as the original listed them, cost 5 from the general allowance', async (version) => {
    const { call } = await setup();
    const r = await call('insight.reference.list', { service: 'linkedin' }, version);
    expect(r.status).toBe(200);
    expect(r.rate).toMatchObject({ cost: 5, remaining: 10_000 - 5 });
    const body = r.body as { count: number; page: number; pages: number; per_page: number; data: { name: string; slug: string; description: string }[] };
    expect(body).toMatchObject({ count: 15, page: 1, pages: 1, per_page: 25 });
    expect(body.data[0]).toEqual({ name: 'User member functions', slug: '/functions', description: '' });
    expect(body.data.map((d) => d.slug)).toEqual([
      '/functions', '/seniorities', '/sectors', '/company_sizes', '/field_names', '/degree_groups', '/countries', '/genders', '/ages',
      '/minor_continents', '/field_groups', '/custom_segments', '/education_statuses', '/industries', '/demographic_values',
    ]);
  });

  it('pages the list by page and per_page, as the recording does (page 1 of 5 at 3 a page), and past the last page answers none', async () => {
    const { call } = await setup();
    const first = (await call('insight.reference.list', { service: 'linkedin', page: 1, per_page: 3 })).body as { data: unknown[] };
    expect(first).toMatchObject({ count: 15, page: 1, pages: 5, per_page: 3 });
    expect(first.data).toHaveLength(3);
    const last = (await call('insight.reference.list', { service: 'linkedin', page: 5, per_page: 3 })).body as { data: { slug: string }[] };
    expect(last.data.map((d) => d.slug)).toEqual(['/education_statuses', '/industries', '/demographic_values']);
    expect(((await call('insight.reference.list', { service: 'linkedin', page: 6, per_page: 3 })).body as { data: unknown[] }).data).toEqual([]);
    expect((await call('insight.reference.list', { service: 'linkedin', per_page: 101 })).status).toBe(400);
  });

  it.each(served)('a set in %s: 200 {count, values: [{title, value}]}; the seniorities are the recorded ten', async (version) => {
    const { call } = await setup();
    const r = await call('insight.reference.get', { service: 'linkedin', slug: 'seniorities' }, version);
    expect(r.status).toBe(200);
    expect(r.rate).toMatchObject({ cost: 5 });
    expect(r.body).toEqual({
      count: 10,
      values: [
        { title: 'CXO', value: 'cxo' }, { title: 'Director', value: 'director' }, { title: 'Entry', value: 'entry' }, { title: 'Manager', value: 'manager' },
        { title: 'Owner', value: 'owner' }, { title: 'Partner', value: 'partner' }, { title: 'Senior', value: 'senior' }, { title: 'Training', value: 'training' },
        { title: 'Unpaid', value: 'unpaid' }, { title: 'VP', value: 'vp' },
      ],
    });
  });

  it('pages a set when asked, with its counts; a slug with its leading slash names the same set', async () => {
    const { call } = await setup();
    const r = await call('insight.reference.get', { service: 'linkedin', slug: 'functions', page: 2, per_page: 10 });
    expect(r.body).toMatchObject({ count: 26, page: 2, pages: 3, per_page: 10 });
    expect((r.body as { values: unknown[] }).values).toHaveLength(10);
    expect(referenceSet('linkedin', '/functions')).toBe(referenceSet('linkedin', 'functions'));
  });

  it('answers 404 for an unknown slug, charged; a service without reference data lists none; a service outside the package is 400', async () => {
    const { call } = await setup();
    const unknown = await call('insight.reference.get', { service: 'linkedin', slug: 'nothing' });
    expect(unknown.status).toBe(404);
    expect(unknown.rate).toMatchObject({ cost: 5, remaining: 10_000 - 5 });
    expect((await call('insight.reference.list', { service: 'facebook' })).body).toEqual({ count: 0, page: 1, pages: 0, per_page: 25, data: [] });
    expect((await call('insight.reference.get', { service: 'facebook', slug: 'seniorities' })).status).toBe(404);
    expect((await call('insight.reference.list', { service: 'myspace' })).status).toBe(400);
  });

  it.each(before)('is no path in %s: the catalogue serves it from 1.5 (404 as any unknown path)', (version) => {
    expect(resolvePath(version, '/insight/linkedin/reference/')).toBeNull();
    expect(resolvePath(version, '/insight/linkedin/reference/seniorities')).toBeNull();
  });

  it.each(served)('is routed in %s with and without a trailing slash', (version) => {
    expect(resolvePath(version, '/insight/linkedin/reference/')!.endpoints.map((e) => e.id)).toEqual(['insight.reference.list']);
    expect(resolvePath(version, '/insight/linkedin/reference')!.endpoints.map((e) => e.id)).toEqual(['insight.reference.list']);
    expect(resolvePath(version, '/insight/linkedin/reference/seniorities/')).toMatchObject({ params: { service: 'linkedin', slug: 'seniorities' } });
  });
});

describe('reference values are the values interactions carry', () => {
  const withTarget = LINKEDIN_REFERENCE_SETS.filter((s) => s.target !== null);
  const pairs = withTarget.flatMap((s) => s.values.map((v) => ({ slug: s.slug, target: s.target!, value: v.value })));

  it('every set is small and has a target, but for the custom segments (none) and the list of all values', () => {
    expect(LINKEDIN_REFERENCE_SETS.filter((s) => s.target === null).map((s) => s.slug)).toEqual(['/custom_segments', '/demographic_values']);
    for (const s of LINKEDIN_REFERENCE_SETS) expect(s.values.length, s.slug).toBeLessThanOrEqual(200);
    for (const s of withTarget) expect(new Set(s.values.map((v) => v.value)).size, s.slug).toBe(s.values.length);
    const all = referenceSet('linkedin', 'demographic_values')!.values;
    expect(all).toHaveLength(withTarget.reduce((n, s) => n + s.values.length, 0));
  });

  it('every target is one the filter language accepts in a recording filter and in a query filter', () => {
    for (const s of withTarget) {
      expect(targetProblem(s.target!, 'definition'), s.target!).toBeNull();
      expect(targetProblem(s.target!, 'query'), s.target!).toBeNull();
    }
  });

  // Any seed's firehose: an hour of LinkedIn at 100 a minute shows every value of every set.
  test.prop([fc.integer(), fc.integer({ min: 29_000_000, max: 30_000_000 })], { numRuns: 4 })(
    'every value of every set occurs in the firehose, and a query filter on its target finds it',
    (seed, minute) => {
      const items = [...firehoseBetween(seed, 'linkedin', 100, minute * 60_000, (minute + 60) * 60_000)];
      for (const { slug, target, value } of pairs) {
        const hit = items.find((i) => {
          const v = readTarget(i, target);
          return Array.isArray(v) ? v.includes(value) : v === value;
        });
        expect(hit, `${slug}: ${value} at ${target}`).toBeDefined();
        expect(compileFilter(`${target} == "${value}"`, { kind: 'query' }).match(hit!).matched, `${target} == "${value}"`).toBe(true);
      }
    },
  );

  test.prop([fc.constantFrom(...pairs)])('a filter on a value matches only interactions carrying it', ({ target, value }) => {
    const items = [...firehoseBetween(11, 'linkedin', 20, T0, T0 + 10 * 60_000)];
    const f = compileFilter(`${target} == "${value}"`, { kind: 'query' });
    for (const i of items) {
      const v = readTarget(i, target);
      expect(f.match(i).matched).toBe(Array.isArray(v) ? v.includes(value) : v === value);
    }
  });
});
