import { describe, expect, it } from 'vitest';
import { ENDPOINTS, type EndpointId } from '../catalogue/endpoints.ts';
import { VERSIONS, atLeast, type VersionId } from '../catalogue/versions.ts';
import { MemoryEventStore } from '../kernel/memory-store.ts';
import { seededIds } from '../kernel/ports.ts';
import { createEngine } from '../platform.ts';
import type { CallAnswer } from '../handling/handler.ts';
import { answerSchemaOf } from './contract.ts';

const T0 = Date.parse('2026-03-01T12:00:00Z');
const S0 = T0 / 1000;

/** Whether an answer meets its endpoint's answer schema for its status, in its version; the reason if not. */
function judged(endpoint: EndpointId, version: VersionId, a: CallAnswer): string | undefined {
  const schema = answerSchemaOf(endpoint, version, a.status);
  if (schema === undefined) return `${a.status} is no status the contract names`;
  if (schema === null) return a.body === undefined ? undefined : 'a body where the contract says none';
  const r = schema.safeParse(a.body);
  return r.success ? undefined : JSON.stringify(r.error.issues.slice(0, 3));
}

/**
 * A tour of every group in one version through the platform's engine: each answer is judged against
 * its schema as it comes, and the successes are counted per endpoint.
 */
async function tour(version: VersionId): Promise<{ served: Set<EndpointId>; wrong: string[] }> {
  const time = { now: T0 };
  const engine = createEngine({ store: new MemoryEventStore(), clock: { now: () => time.now }, ids: seededIds(11) });
  await engine.openAccount({ username: 'alice', api_key: 'alice-key-01', package: { credits_per_hour: 1e9, analyze_credits_per_hour: 1e9 } });
  const served = new Set<EndpointId>();
  const wrong: string[] = [];
  const call = async (endpoint: EndpointId, params: Record<string, unknown> = {}, apiKey = 'alice-key-01') => {
    const a = await engine.call({ version, endpoint, credentials: { username: 'alice', apiKey }, params, mediaType: 'application/json' });
    const problem = judged(endpoint, version, a);
    if (problem) wrong.push(`${version} ${endpoint} ${a.status}: ${problem} — ${JSON.stringify(a.body)?.slice(0, 300)}`);
    if (a.status < 300) served.add(endpoint);
    return a.body as Record<string, unknown> & { id: string };
  };
  const byId = atLeast(version, '1.3');

  await call('core.validate', { csdl: 'fb.content contains "coffee"' });
  const { hash } = (await call('core.compile', { csdl: 'fb.content contains "coffee"' })) as unknown as { hash: string };
  await call('insight.validate', { csdl: 'fb.content contains "coffee"' });
  await call('insight.compile', { csdl: 'fb.content contains "coffee"' });
  await call('core.dpu', { hash });
  await call('core.usage');
  await call('core.balance');
  await call('account.usage');
  await call('core.validate', {});

  // Identities, tokens and limits.
  const identity = await call('account.identity.create', { label: 'team' });
  await call('account.identity.list');
  await call('account.identity.get', { id: identity.id });
  await call('account.identity.update', { id: identity.id, status: 'active' });
  await call('account.identity.token.create', { identity_id: identity.id, service: 'facebook', token: 't1' });
  await call('account.identity.token.list', { identity_id: identity.id });
  await call('account.identity.token.get', { identity_id: identity.id, service: 'facebook' });
  await call('account.identity.token.update', { identity_id: identity.id, service: 'facebook', token: 't2' });
  await call('account.identity.token.delete', { identity_id: identity.id, service: 'facebook' });
  await call('account.identity.limit.create', { identity_id: identity.id, service: 'facebook', total_allowance: 100 });
  await call('account.identity.limit.get', { identity_id: identity.id, service: 'facebook' });
  await call('account.identity.limit.list', { service: 'facebook' });
  await call('account.identity.limit.update', { identity_id: identity.id, service: 'facebook', analyze_queries: 'null' });
  await call('account.identity.limit.delete', { identity_id: identity.id, service: 'facebook' });

  // Recordings, analysis, tasks, reference data.
  const started = await call('insight.start', { hash, name: 'coffee' });
  const named = byId ? { id: started.id } : { hash };
  await call('insight.get', {});
  await call('insight.get', named);
  await call('insight.sample', named);
  await call('insight.tags', named);
  await call('insight.analyze', { ...named, parameters: { analysis_type: 'freqDist', parameters: { target: 'fb.author.gender', threshold: 2 } } });
  await call('insight.update', { ...named, name: 'coffee 2' });
  if (byId) {
    const task = await call('tasks.create', {
      service: 'facebook',
      subscription_id: started.id,
      name: 'genders',
      parameters: { start: S0 - 3600, end: S0, parameters: { analysis_type: 'freqDist', parameters: { target: 'fb.author.gender', threshold: 2 } } },
    });
    await call('tasks.list', { service: 'facebook' });
    await call('tasks.get', { service: 'facebook', id: task.id });
  }
  if (atLeast(version, '1.5')) {
    await call('insight.reference.list', { service: 'linkedin' });
    await call('insight.reference.get', { service: 'linkedin', slug: 'industries' });
  }

  // Push, over the recording.
  const output = { output_type: 'pull', output_params: { format: 'json_array' } };
  await call('push.validate', output);
  const sub = await call('push.create', { ...output, name: 'to pull', hash: byId ? hash : hash });
  await call('push.get');
  await call('push.get', { id: sub.id });
  await call('push.log', { id: sub.id });
  await call('push.pause', { id: sub.id });
  await call('push.resume', { id: sub.id });
  await call('push.update', { id: sub.id, name: 'renamed' });
  time.now += 60_000;
  await call('push.pull', { id: sub.id });
  await call('push.stop', { id: sub.id });
  await call('push.delete', { id: sub.id });
  await call('insight.stop', named);

  // Historics and previews, over the past.
  const q = await call('historics.prepare', { hash, start: S0 - 7200, end: S0 - 3600, sources: 'facebook', name: 'past' });
  await call('historics.get');
  await call('historics.get', { id: q.id });
  await call('historics.status', { start: S0 - 7200, end: S0 - 3600 });
  await call('historics.update', { id: q.id, name: 'past 2' });
  await call('core.dpu', { historics_id: q.id });
  await call('historics.start', { id: q.id });
  await call('historics.pause', { id: q.id });
  await call('historics.resume', { id: q.id });
  await call('historics.stop', { id: q.id });
  await call('historics.delete', { id: q.id });
  const preview = await call('preview.create', { hash, start: S0 - 7200, end: S0 - 3600, parameters: 'fb.author.gender,freqDist,5' });
  await call('preview.get', { id: preview.id });
  time.now += 3_600_000;
  await call('preview.get', { id: preview.id });

  // Managed sources and ingestion.
  await call('source.category.get');
  const source = await call('source.create', {
    source_type: 'facebook_page',
    name: 'page',
    parameters: { comments: true },
    resources: [{ parameters: { id: '130871750291428' } }],
    auth: [{ parameters: { value: 'token' } }],
  });
  await call('source.get');
  await call('source.get', { id: source.id });
  await call('source.start', { id: source.id });
  await call('source.log', { id: source.id });
  await call('source.update', { id: source.id, name: 'page 2' });
  const withAuth = await call('source.auth.add', { id: source.id, auth: [{ parameters: { value: 'token 2' } }] });
  await call('source.auth.remove', { id: source.id, auth_ids: [(withAuth['auth'] as { identity_id: string }[])[0]!.identity_id] });
  const withRes = await call('source.resource.add', { id: source.id, resources: [{ parameters: { id: '42' } }] });
  await call('source.resource.remove', { id: source.id, resource_ids: (withRes['resources'] as { resource_id: string }[])[0]!.resource_id });
  const gnip = await call('source.create', { source_type: 'twitter_gnip', name: 'g', resources: [{ parameters: { mapping: 'gnip_1' } }] });
  await call('source.start', { id: gnip.id });
  const ingested = await engine.call({ version, endpoint: 'ingest', credentials: { username: 'alice', apiKey: 'alice-key-01' }, params: { source_id: gnip.id }, body: '{"id":"1","content":"coffee"}\n' });
  const problem = judged('ingest', version, ingested);
  if (problem) wrong.push(`${version} ingest ${ingested.status}: ${problem}`);
  if (ingested.status < 300) served.add('ingest');
  await call('source.stop', { id: source.id });
  await call('source.delete', { id: source.id });
  await call('account.identity.delete', { id: identity.id });
  return { served, wrong };
}

describe('every answer meets its endpoint’s answer schema for its status, in every version', () => {
  for (const { id: version } of VERSIONS) {
    it(`API ${version}: a tour of every group`, async () => {
      const { served, wrong } = await tour(version);
      expect(wrong).toEqual([]);
      // Every endpoint the version serves answered with success at least once (tasks from 1.3, reference data from 1.5).
      const expected = ENDPOINTS.filter((e) => e.forms.some((f) => atLeast(version, f.from)))
        .map((e) => e.id)
        .filter((id) => atLeast(version, '1.3') || !id.startsWith('tasks.'));
      expect(expected.filter((id) => !served.has(id))).toEqual([]);
    });
  }
});
