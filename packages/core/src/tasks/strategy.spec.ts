import { describe, expect, it } from 'vitest';
import type { EndpointId } from '../catalogue/endpoints.ts';
import { VERSIONS, atLeast, type VersionId } from '../catalogue/versions.ts';
import { accountDecider, accountStream } from '../accounting/account.ts';
import { MemoryEventStore } from '../kernel/memory-store.ts';
import { seededIds, type Clock } from '../kernel/ports.ts';
import { compileAndRegister } from '../filters/index.ts';
import { createEngine } from '../platform.ts';
import { recordInteractions } from '../recordings/record-interactions.ts';
import { recordingsDecider, recordingsStream } from '../recordings/recording.ts';
import { STRATEGY_TASKS_FROM } from './handlers.ts';
import { STRATEGY_QUEUE_LIMIT, STRATEGY_TASK_MS, TASK_MS } from './task-slot.ts';
import { audienceFilter, validateStrategyRequest } from './strategy.ts';

const T0 = Date.parse('2026-04-01T12:00:00Z');
const creds = { username: 'alice', apiKey: 'alice-key-0001' };
const REC = 'e'.repeat(40);

/**
 * A linkedin recording of twelve interactions by six members: three in legal, each sharing law.example
 * twice and news.example once; three in finance, each sharing news.example once.
 */
async function setup(pkg: Record<string, unknown> = {}) {
  const time = { now: T0 };
  const clock: Clock = { now: () => time.now };
  const engine = createEngine({ store: new MemoryEventStore(), clock, ids: seededIds(5) });
  await engine.openAccount({ username: 'alice', api_key: creds.apiKey, package: { redaction_audience_min: 1, redaction_bucket_min: 1, ...pkg } });
  await engine.command(async (uow) => {
    const filter = await compileAndRegister(uow, 'li.type exists', { register: true });
    await uow.execute(recordingsDecider, recordingsStream('alice'), { type: 'StartRecording', id: REC, hash: filter.hash, name: 'all', service: 'linkedin', at: uow.now, identityId: null, concurrentLimit: 10, holdLimit: 1000 });
  });
  await engine.command(async (uow) => {
    const account = await uow.load(accountDecider, accountStream('alice'));
    const share = (n: number, member: number, sector: string, domain: string) => ({
      interaction: { id: `i${n}`, created_at: T0 / 1000 - 600 + n },
      li: { type: 'activity', all: { content: 'a post', articles: { domain: [domain] } }, user: { member: { id: `m${member}`, employer_industry_sectors: [sector], employer_industry_names: [sector === 'legal' ? 'law practice' : 'banking'] } } },
    });
    const items = [];
    let n = 0;
    for (let m = 0; m < 3; m++) items.push(share(n++, m, 'legal', 'law.example'), share(n++, m, 'legal', 'law.example'), share(n++, m, 'legal', 'news.example'));
    for (let m = 3; m < 6; m++) items.push(share(n++, m, 'finance', 'news.example'));
    return recordInteractions({ uow, account, settings: engine.settings, now: uow.now }, items);
  });
  const call = (endpoint: EndpointId, params: Record<string, unknown> = {}, version: VersionId = '1.5') =>
    engine.call({ version, endpoint, credentials: creds, params, mediaType: 'application/json' });
  const task = {
    service: 'linkedin',
    subscription_id: REC,
    name: 'Ruby client test - top domains',
    type: 'strategy',
    parameters: { strategy: 'top_domains', version: 1, start: T0 / 1000 - 3600, end: T0 / 1000, parameters: { audience: { sectors: ['legal'] }, comparison_audience: 'global' } },
  };
  return { engine, time, call, task };
}

describe('strategy tasks through engine.call, in every version', () => {
  const served = VERSIONS.filter((v) => atLeast(v.id, STRATEGY_TASKS_FROM)).map((v) => v.id);
  const before = VERSIONS.filter((v) => !atLeast(v.id, STRATEGY_TASKS_FROM)).map((v) => v.id);

  it.each(served)('create in %s: 202 {id} with the strategy queue headers, cost 5 and no allowance drawn', async (version) => {
    const { call, task, engine } = await setup();
    const a = await call('tasks.create', task, version);
    expect(a.status).toBe(202);
    expect((a.body as { id: string }).id).toMatch(/^[0-9a-f]{40}$/);
    expect(a.headers).toEqual({ 'X-Strategy-Tasks-Queued': '1', 'X-Strategy-Tasks-Queue-Limit': String(STRATEGY_QUEUE_LIMIT) });
    expect(a.rate).toMatchObject({ cost: 5, remaining: 10_000 });
    expect((await call('tasks.create', { ...task, name: 'second' }, version)).headers!['X-Strategy-Tasks-Queued']).toBe('2');
    // An analysis task beside them joins its own slot, empty.
    const analysis = { ...task, type: 'analysis', parameters: { parameters: { analysis_type: 'freqDist', parameters: { target: 'li.user.member.employer_industry_sectors', threshold: 2 } } } };
    expect((await call('tasks.create', analysis, version)).headers).toEqual({ 'X-Analysis-Tasks-Queued': '1', 'X-Analysis-Tasks-Queue-Limit': '1000' });
    expect((await engine.accountView('alice')).allowances.general.remaining).toBe(10_000);
  });

  it.each(before)('create in %s: 400, a strategy is no task type there; nothing queued', async (version) => {
    const { call, task } = await setup();
    expect((await call('tasks.create', task, version)).body).toEqual({ error: 'type is invalid; valid values are: analysis' });
    expect((await call('tasks.list', { service: 'linkedin' }, version)).body).toMatchObject({ count: 0 });
  });

  it('takes the Ruby client\'s own request: the strategy named `insight`, an industries audience', async () => {
    const { call, task } = await setup();
    const ruby = { ...task, parameters: { insight: 'top_domains', version: 1, parameters: { comparison_audience: 'global', audience: { industries: ['law practice'] } } } };
    expect((await call('tasks.create', ruby)).status).toBe(202);
  });

  it('keeps the request as its schema read it: the strategy named, the defaults given, keys it does not know dropped', async () => {
    const { call, task } = await setup();
    const sent = { ...task, parameters: JSON.stringify({ insight: 'top_urls', note: 'x'.repeat(40_000), parameters: { audience: { sectors: 'legal' } } }) };
    const { id } = (await call('tasks.create', sent)).body as { id: string };
    expect((await call('tasks.get', { service: 'linkedin', id })).body).toMatchObject({
      parameters: { strategy: 'top_urls', version: 1, parameters: { audience: { sectors: ['legal'] }, comparison_audience: 'global' } },
    });
    expect(JSON.stringify(((await call('tasks.get', { service: 'linkedin', id })).body as { parameters: unknown }).parameters)).not.toContain('note');
  });

  it('is queued 45 s, then completed with the audience against the comparison, each item with its index', async () => {
    const { call, task, time } = await setup();
    const { id } = (await call('tasks.create', task)).body as { id: string };
    expect((await call('tasks.get', { service: 'linkedin', type: 'strategy', id })).body).toMatchObject({ id, type: 'strategy', status: 'queued', result: null, usage: { strategy_tasks: 1 }, parameters: task.parameters });
    time.now += STRATEGY_TASK_MS - 1;
    expect((await call('tasks.get', { service: 'linkedin', id })).body).toMatchObject({ status: 'queued' });
    time.now += 1;
    const done = await call('tasks.get', { service: 'linkedin', type: 'strategy', id });
    expect(done.body).toMatchObject({
      status: 'completed',
      steps_completed: 1,
      total_steps: 1,
      message: '',
      updated_at: Math.floor((T0 + STRATEGY_TASK_MS) / 1000),
      result: {
        strategy: 'top_domains',
        version: 1,
        audience: { interactions: 9, unique_authors: 3 },
        comparison_audience: { name: 'global', interactions: 12, unique_authors: 6 },
        redacted: false,
        results: [
          { key: 'law.example', interactions: 6, unique_authors: 3, comparison_interactions: 6, comparison_unique_authors: 3, index: 200 },
          { key: 'news.example', interactions: 3, unique_authors: 3, comparison_interactions: 6, comparison_unique_authors: 6, index: 100 },
        ],
      },
    });
    expect((await call('tasks.list', { service: 'linkedin', type: 'strategy', status: 'completed' })).body).toMatchObject({ count: 1, tasks: [{ id, result: null }] });
    expect((await call('tasks.list', { service: 'linkedin', type: 'analysis' })).body).toMatchObject({ count: 0 });
    expect((await call('tasks.get', { service: 'linkedin', type: 'analysis', id })).status).toBe(404);
  });

  it('groups the audience by the top values of a reference set, each group with its own items', async () => {
    const { call, task, time } = await setup();
    const grouped = { ...task, parameters: { ...task.parameters, parameters: { audience: { sectors: ['legal', 'finance'] }, groups: { top: { sectors: 2 } } } } };
    const { id } = (await call('tasks.create', grouped)).body as { id: string };
    time.now += STRATEGY_TASK_MS;
    const result = ((await call('tasks.get', { service: 'linkedin', id })).body as { result: { groups: { key: string; results: { key: string }[] }[] } }).result;
    expect(result.groups.map((g) => [g.key, g.results.map((r) => r.key)])).toEqual([
      ['legal', ['law.example', 'news.example']],
      ['finance', ['news.example']],
    ]);
  });

  it('refuses what a strategy cannot run with a 400 naming the field, and queues nothing', async () => {
    const { call, task } = await setup();
    const withParams = (p: Record<string, unknown>) => ({ ...task, parameters: { ...task.parameters, ...p } });
    const inner = (p: Record<string, unknown>) => withParams({ parameters: { audience: { sectors: ['legal'] }, ...p } });
    const cases: [Record<string, unknown>, RegExp][] = [
      [withParams({ strategy: 'top_everything' }), /parameters.strategy is invalid; valid values are: top_urls,top_domains,top_functions/],
      [withParams({ version: 2 }), /parameters.version is invalid/],
      [withParams({ parameters: {} }), /Missing param 'parameters.parameters.audience'/],
      [inner({ audience: { planets: ['mars'] } }), /audience.planets names no reference set of linkedin/],
      [inner({ audience: { sectors: ['astrology'] } }), /"astrology", not a value of \/sectors/],
      [inner({ audience: { keywords: { any: ['a,b'] } } }), /without commas/],
      [inner({ comparison_audience: 'mars' }), /comparison_audience is invalid; valid values are: global/],
      [inner({ groups: { top: { sectors: 11 } } }), /groups.top.sectors/],
      [withParams({ start: T0 / 1000, end: T0 / 1000 - 10 }), /Start cannot be after end/],
      [inner({ keywords: { all: ['k'.repeat(101)] } }), /parameters.parameters.keywords.all\[0\] must be a keyword of at most 100 characters/],
      [withParams({ strategy: undefined, insight: undefined }), /Missing param 'parameters.strategy'/],
      [withParams({ parameters: '{"audience": ' }), /parameters.parameters must be valid JSON/],
    ];
    for (const [body, error] of cases) {
      const r = await call('tasks.create', body);
      expect(r.status, JSON.stringify(r.body)).toBe(400);
      expect((r.body as { error: string }).error).toMatch(error);
    }
    expect((await call('tasks.list', { service: 'linkedin' })).body).toMatchObject({ count: 0 });
  });

  it('refuses the 201st unfinished strategy 429 while analysis tasks still queue, and takes one again once the first has finished', async () => {
    const { call, task, time } = await setup();
    for (let k = 0; k < STRATEGY_QUEUE_LIMIT; k++) expect((await call('tasks.create', { ...task, name: `s${k}` })).status).toBe(202);
    const full = await call('tasks.create', { ...task, name: 'one too many' });
    expect(full.status).toBe(429);
    expect((full.body as { error: string }).error).toMatch(/strategy task queue is full/);
    // Analysis tasks still queue beside a full strategy queue.
    const analysis = { ...task, type: 'analysis', parameters: { parameters: { analysis_type: 'freqDist', parameters: { target: 'li.user.member.employer_industry_sectors', threshold: 2 } } } };
    expect((await call('tasks.create', analysis)).status).toBe(202);
    time.now += STRATEGY_TASK_MS;
    expect((await call('tasks.create', { ...task, name: 'room again' })).headers!['X-Strategy-Tasks-Queued']).toBe(String(STRATEGY_QUEUE_LIMIT));
    expect(TASK_MS).toBeLessThan(STRATEGY_TASK_MS);
  });
});

describe('the strategy request', () => {
  it('reads the audience into a query filter of one `in` per reference set and the keywords', () => {
    const req = validateStrategyRequest('linkedin', { strategy: 'top_urls', parameters: { audience: { sectors: 'legal, finance', seniorities: ['cxo'], keywords: { any: ['merger', 'acquisition'] } } } });
    expect(audienceFilter('linkedin', req)).toEqual([
      'li.user.member.employer_industry_sectors in "legal,finance"',
      'li.user.member.seniority in "cxo"',
      'li.all.content contains_any "merger,acquisition"',
    ]);
  });
  it('offers no strategy over a service without reference data but the article ones', () => {
    expect(() => validateStrategyRequest('facebook', { strategy: 'top_functions', parameters: { audience: { keywords: { any: ['x'] } } } })).toThrow(/valid values are: top_urls,top_domains$/);
  });
});
