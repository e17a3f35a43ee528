import type { EndpointId } from '../catalogue/endpoints.ts';
import { describe, expect, it } from 'vitest';
import { Engine } from '../pipeline/engine.ts';
import { MemoryEventStore } from '../kernel/memory-store.ts';
import { seededIds } from '../kernel/ports.ts';
import type { VersionId } from '../catalogue/versions.ts';
import { filterHandlers } from '../filters/handlers.ts';
import { recordingHandlers } from '../recordings/handlers.ts';
import { firehose } from '../firehose/firehose.ts';
import { analysisHandlers } from './handlers.ts';

const T0 = Date.parse('2026-05-10T00:00:00Z');

async function platform(pkg: Record<string, unknown> = { redaction_audience_min: 10, redaction_bucket_min: 5 }) {
  const time = { now: T0 };
  const engine = new Engine({ store: new MemoryEventStore(), clock: { now: () => time.now }, ids: seededIds(11), handlers: { ...filterHandlers, ...recordingHandlers, ...analysisHandlers } });
  await engine.openAccount({ username: 'ana', api_key: 'ana-key-0001', package: pkg });
  const call = (version: VersionId, endpoint: EndpointId, params: Record<string, unknown> = {}) =>
    engine.call({ version, endpoint, credentials: { username: 'ana', apiKey: 'ana-key-0001' }, params });
  const hash = ((await call('1.5', 'insight.compile', { csdl: 'tag.device.kind "mobile" { fb.parent.interface == "mobile" } return { fb.type exists }' })).body as { hash: string }).hash;
  const id = ((await call('1.5', 'insight.start', { hash, name: 'all' })).body as { id: string }).id;
  await firehose.switchOn(engine, 'ana', { service: 'facebook', perMinute: 40, seed: 21 });
  time.now += 60 * 60_000;
  await firehose.catchUp(engine, 'ana');
  return { engine, time, call, id, hash };
}

describe('analysis through engine.call', () => {
  it('answers a freqDist with counts, unique authors and nested children', async () => {
    const p = await platform();
    const a = await p.call('1.5', 'insight.analyze', {
      id: p.id,
      parameters: JSON.stringify({ analysis_type: 'freqDist', parameters: { target: 'fb.author.gender', threshold: 2 }, child: { analysis_type: 'freqDist', parameters: { target: 'fb.author.age', threshold: 3 } } }),
      filter: '',
      start: '',
      end: '',
    });
    expect(a.status).toBe(200);
    const body = a.body as { interactions: number; unique_authors: number; analysis: { redacted: boolean; results: { key: string; interactions: number; child: { results: unknown[] } }[] } };
    expect(body.interactions).toBe(40 * 60);
    expect(body.unique_authors).toBeGreaterThan(100);
    expect(body.analysis.redacted).toBe(false);
    expect(body.analysis.results.map((r) => r.key).sort()).toEqual(['female', 'male']);
    expect(body.analysis.results[0]!.child.results).toHaveLength(3);
    expect(a.rate).toMatchObject({ cost: 25 });
  });

  it('redacts (200, redacted: true, no counts) below the package audience', async () => {
    const p = await platform({ redaction_audience_min: 1_000_000, redaction_bucket_min: 1 });
    const a = await p.call('1.5', 'insight.analyze', { id: p.id, parameters: { analysis_type: 'freqDist', parameters: { target: 'fb.author.gender', threshold: 2 } } });
    expect(a).toMatchObject({ status: 200, body: { interactions: 0, unique_authors: 0, analysis: { redacted: true, results: [] } } });
  });

  it('a timeSeries by minute, a query filter, and 400s that say where the request is wrong', async () => {
    const p = await platform();
    const start = Math.floor((T0 + 10 * 60_000) / 1000);
    const ts = await p.call('1.5', 'insight.analyze', { id: p.id, parameters: { analysis_type: 'timeSeries', parameters: { interval: 'minute', span: 5 } }, start, end: start + 1800, filter: 'fb.author.gender == "female"' });
    const results = (ts.body as { analysis: { results: { key: number; interactions: number }[] } }).analysis.results;
    expect(results.map((r) => r.key)).toEqual([0, 1, 2, 3, 4, 5].map((k) => start + k * 300));
    const bad = await p.call('1.5', 'insight.analyze', { id: p.id, parameters: { analysis_type: 'freqDist', parameters: { target: 'fb.author.gender', threshold: 500 } } });
    expect(bad).toMatchObject({ status: 400, body: { error: 'parameters.parameters.threshold must be at most 200' } });
    const badFilter = await p.call('1.5', 'insight.analyze', { id: p.id, parameters: { analysis_type: 'freqDist', parameters: { target: 'fb.author.gender' } }, filter: 'fb.author.gender ==' });
    expect(badFilter.status).toBe(400);
    const unknown = await p.call('1.5', 'insight.analyze', { id: 'e'.repeat(40), parameters: { analysis_type: 'freqDist', parameters: { target: 'fb.author.gender' } } });
    expect(unknown.status).toBe(404);
    const v1 = await p.call('1.0', 'insight.analyze', { hash: 'zz', parameters: { analysis_type: 'freqDist', parameters: { target: 'fb.author.gender' } } });
    expect(v1).toMatchObject({ status: 400, body: { error: 'hash must be a valid hash' } });
    const byHash = await p.call('1.2', 'insight.analyze', { hash: p.hash, parameters: { analysis_type: 'freqDist', parameters: { target: 'fb.author.gender' } } });
    expect(byHash.status).toBe(200);
  });

  it('samples the newest interactions with remaining and reset_at, and lists tag namespaces', async () => {
    const p = await platform();
    const s = await p.call('1.5', 'insight.sample', { id: p.id, count: 5 });
    const body = s.body as { remaining: number; reset_at: number; interactions: { interaction: { created_at: number } }[] };
    expect(body.interactions).toHaveLength(5);
    expect(body.remaining).toBeLessThan(10_000);
    expect(body.reset_at).toBeGreaterThan(Math.floor(p.time.now / 1000));
    const times = body.interactions.map((i) => i.interaction.created_at);
    expect([...times].sort((a, b) => b - a)).toEqual(times);
    expect((await p.call('1.5', 'insight.sample', { id: p.id, count: 101 })).status).toBe(400);
    expect((await p.call('1.5', 'insight.tags', { id: p.id })).body).toEqual(['interaction.tag_tree.device.kind']);
  });
});
