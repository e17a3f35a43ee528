import type { EndpointId } from '../catalogue/endpoints.ts';
import { describe, expect, it } from 'vitest';
import { MemoryEventStore } from '../kernel/memory-store.ts';
import { seededIds, type Clock } from '../kernel/ports.ts';
import type { VersionId } from '../catalogue/versions.ts';
import { createEngine } from '../platform.ts';

const creds = { username: 'alice', apiKey: 'alice-key-0001' };

async function setup() {
  const time = { now: Date.parse('2018-01-16T21:44:56Z') };
  const clock: Clock = { now: () => time.now };
  const store = new MemoryEventStore();
  const engine = createEngine({ store, clock, ids: seededIds(11) });
  await engine.openAccount({ username: 'alice', api_key: creds.apiKey });
  const call = (endpoint: EndpointId, params: Record<string, unknown> = {}, version: VersionId = '1.5') =>
    engine.call({ version, endpoint, credentials: creds, params });
  return { engine, store, time, call };
}

describe('filter endpoints through engine.call', () => {
  it('/validate answers created_at as "YYYY-MM-DD HH:MM:SS" and dpu as a string, recording nothing', async () => {
    const { call, store } = await setup();
    const head = await store.head();
    const a = await call('core.validate', { csdl: 'interaction.content contains "coffee"' });
    expect(a).toMatchObject({ status: 200, body: { created_at: '2018-01-16 21:44:56', dpu: '0.1' } });
    // Only the charge was written.
    const written = await store.readAll(head, 100);
    expect(written.map((e) => e.type)).not.toContain('FilterCompiled');
  });

  it('/compile adds the hash, records the definition once, and /dpu answers its breakdown', async () => {
    const { call, store } = await setup();
    const a = await call('core.compile', { csdl: 'interaction.content contains "a" or interaction.title contains "b"' });
    expect(a.status).toBe(200);
    const body = a.body as { hash: string; created_at: string; dpu: string };
    expect(body).toEqual({ hash: expect.stringMatching(/^[0-9a-f]{32}$/), created_at: '2018-01-16 21:44:56', dpu: '0.2' });
    const again = await call('core.compile', { csdl: 'interaction.content  contains "a"  // same\n OR interaction.title contains "b"' });
    expect((again.body as { hash: string }).hash).toBe(body.hash);
    const events = await store.readStream(`filter:${body.hash}`, 0);
    expect(events.map((e) => e.type)).toEqual(['FilterCompiled']);
    const dpu = await call('core.dpu', { hash: body.hash });
    expect(dpu).toMatchObject({
      status: 200,
      body: { dpu: 0.2, detail: { contains: { count: 2, dpu: 0.2, targets: { 'interaction.content': { count: 1, dpu: 0.1 }, 'interaction.title': { count: 1, dpu: 0.1 } } } } },
    });
  });

  it('/dpu with a historics_id answers the query\'s cost as a number, never null', async () => {
    const { call, time } = await setup();
    const { hash } = (await call('core.compile', { csdl: 'interaction.content contains "coffee"' })).body as { hash: string };
    const end = Math.floor(time.now / 1000) - 86_400;
    const prepared = await call('historics.prepare', { hash, start: end - 3600, end, sources: 'facebook', name: 'past' });
    expect(prepared.status).toBe(200);
    const { id, dpus } = prepared.body as { id: string; dpus: number };
    expect(await call('core.dpu', { historics_id: id })).toMatchObject({ status: 200, body: { dpu: dpus, detail: {} } });
  });

  it('/dpu: 400 for a malformed hash, 404 for an unknown one, 400 for an unknown historics id', async () => {
    const { call } = await setup();
    expect(await call('core.dpu', { hash: 'nope' })).toMatchObject({ status: 400, body: { error: 'Unable to get DPU [400]' } });
    expect((await call('core.dpu', { hash: 'f'.repeat(32) })).status).toBe(404);
    expect((await call('core.dpu', { historics_id: 'a'.repeat(20) })).status).toBe(400);
    expect((await call('core.dpu', {})).status).toBe(400);
  });

  it('a parse error answers 400 naming line and position, and is still charged', async () => {
    const { call } = await setup();
    const a = await call('core.validate', { csdl: 'interaction.nonsense is not valid' });
    expect(a.status).toBe(400);
    expect((a.body as { error: string }).error).toMatch(/^We are unable to parse this stream\. At line 1 position 21 we were expecting/);
    expect(a.rate?.remaining).toBe(9995);
    expect((await call('core.validate', {})).status).toBe(400);
  });

  it('/insight/validate and /insight/compile answer created_at as epoch seconds in a string', async () => {
    const { call } = await setup();
    const v = await call('insight.validate', { csdl: 'fb.content any "ruby"' });
    expect(v).toMatchObject({ status: 200, body: { created_at: '1516139096', dpu: '0.2' } });
    const c = await call('insight.compile', {
      csdl: 'tag.keyword "ruby" { interaction.content contains_any "ruby, rails" } tag.score 1 { interaction.content contains "ruby" } return { interaction.content contains "ruby" }',
    });
    expect(c).toMatchObject({ status: 200, body: { hash: expect.stringMatching(/^[0-9a-f]{32}$/), created_at: '1516139096', dpu: '0.4' } });
    expect(await call('insight.compile', { csdl: 'fb.content exists or twitter.text contains "x"' })).toMatchObject({
      status: 400,
      body: { error: 'The target twitter.text does not exist' },
    });
    expect((await call('core.compile', { csdl: 'fb.content exists or twitter.text contains "x"' })).status).toBe(200);
    const bad = await call('insight.validate', { csdl: 'fb.contwent contains "x"' });
    expect(bad).toMatchObject({ status: 400, body: { error: 'The target fb.contwent does not exist (at line 1 position 0)' } });
  });

  it('inclusions must name compiled definitions; included tag rules count toward the 10,000', async () => {
    const { call } = await setup();
    const unknown = await call('core.compile', { csdl: `stream "${'a'.repeat(32)}"` });
    expect(unknown.status).toBe(400);
    expect((unknown.body as { error: string }).error).toMatch(/not a compiled definition/);
    const rules = (n: number, p: string) => Array.from({ length: n }, (_, k) => `tag "${p}${k}" { fb.type exists }`).join('\n');
    const set = (await call('core.compile', { csdl: rules(6000, 'a') })).body as { hash: string };
    expect(set.hash).toMatch(/^[0-9a-f]{32}$/);
    const ok = await call('core.compile', { csdl: `tags "${set.hash}"\n${rules(4000, 'b')}\nreturn { fb.content exists }` });
    expect(ok.status).toBe(200);
    const over = await call('core.compile', { csdl: `tags "${set.hash}"\n${rules(4001, 'b')}\nreturn { fb.content exists }` });
    expect(over.status).toBe(400);
    expect((over.body as { error: string }).error).toMatch(/^Tag limit: .* this one holds 10001$/);
    const viaStream = await call('core.compile', { csdl: `stream "${(ok.body as { hash: string }).hash}" and fb.type == "story"` });
    expect(viaStream.status).toBe(200);
  });
});

describe('the filter registry: what one account can add to it', () => {
  it('new definitions stop at the package\'s filter_chars_per_day (403 naming it); a recorded definition costs nothing; the next limiting day starts again', async () => {
    const { engine, call, time } = await setup();
    await engine.changePackage('alice', { filter_chars_per_day: 200 });
    const csdl = (n: number) => `interaction.content contains "${String(n).padStart(60, 'x')}"`;
    expect((await call('core.compile', { csdl: csdl(1) })).status).toBe(200);
    expect((await call('core.compile', { csdl: csdl(2) })).status).toBe(200);
    const refused = await call('core.compile', { csdl: csdl(3) });
    expect(refused.status).toBe(403);
    expect((refused.body as { error: string }).error).toMatch(/at most 200 characters of new filter definitions a limiting day \(filter_chars_per_day\)/);
    // Charged as a step-7 refusal; nothing recorded.
    expect(refused.rate?.cost).toBe(5);
    expect((await call('core.validate', { csdl: csdl(3) })).status).toBe(200);
    expect((await call('core.compile', { csdl: csdl(1) })).status).toBe(200);
    time.now += 24 * 3_600_000;
    expect((await call('core.compile', { csdl: csdl(3) })).status).toBe(200);
  });
});
