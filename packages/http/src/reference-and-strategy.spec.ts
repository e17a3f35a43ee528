import { describe, expect, it } from 'vitest';
import { VERSIONS, atLeast, createEngine } from '@sdp/core';
import { MemoryEventStore, seededIds } from '@sdp/core/kernel';
import { ManualClock } from '@sdp/clock';
import { createFetchHandler } from './fetch-handler.ts';

/**
 * The three calls the Ruby client (datasift-ruby 3.10.0, API 1.5) could not complete, as it sends them
 * (docs/clients.md#tasks, docs/clients.md#reference-data): its product word, its trailing slash, its headers and JSON body.
 */
const T0 = Date.parse('2026-04-01T12:00:00Z');
const AUTH = { authorization: 'alice:alice-key-0001' };

async function setup() {
  const engine = createEngine({ store: new MemoryEventStore(), clock: new ManualClock(T0), ids: seededIds(4) });
  await engine.openAccount({ username: 'alice', api_key: 'alice-key-0001' });
  const fetch = createFetchHandler(engine, { product: 'pylon' });
  const send = (path: string, init: RequestInit = {}) => fetch(new Request(`http://sdp.test${path}`, { ...init, headers: { ...AUTH, 'user-agent': 'DataSift/v1.5 Ruby/v3.10.0', ...(init.headers ?? {}) } }));
  return { send };
}

const j = (r: Response): Promise<any> => r.json();
const versionPrefix = (v: string) => (v === '1.0' ? '' : `/v${v}`);

describe('reference data over HTTP', () => {
  it('answers the Ruby client: the list with its trailing slash, a page of 3, and the seniorities', async () => {
    const { send } = await setup();
    const list = await send('/v1.5/pylon/linkedin/reference/');
    expect(list.status).toBe(200);
    expect(list.headers.get('x-ratelimit-cost')).toBe('5');
    expect(await j(list)).toMatchObject({ count: 15, page: 1, pages: 1, per_page: 25, data: expect.arrayContaining([{ name: 'User member seniorities', slug: '/seniorities', description: '' }]) });
    const paged = await j(await send('/v1.5/pylon/linkedin/reference/?page=1&per_page=3'));
    expect(paged).toMatchObject({ count: 15, page: 1, pages: 5, per_page: 3 });
    expect(paged.data).toHaveLength(3);
    const seniorities = await send('/v1.5/pylon/linkedin/reference/seniorities');
    expect(seniorities.status).toBe(200);
    const body = await j(seniorities);
    expect(body.count).toBe(10);
    expect(body.values[0]).toEqual({ title: 'CXO', value: 'cxo' });
  });

  it('serves the form without the trailing slash (the .NET client) and refuses other methods 405', async () => {
    const { send } = await setup();
    expect((await send('/v1.5/pylon/linkedin/reference')).status).toBe(200);
    expect((await send('/v1.5/pylon/linkedin/reference/seniorities/')).status).toBe(200);
    const post = await send('/v1.5/pylon/linkedin/reference/', { method: 'POST' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, OPTIONS');
  });

  it.each(VERSIONS.map((v) => v.id))('in %s: 200 from 1.5, else 404 as any path the version lacks, uncharged', async (version) => {
    const { send } = await setup();
    for (const path of ['/pylon/linkedin/reference/', '/pylon/linkedin/reference/seniorities']) {
      const r = await send(versionPrefix(version) + path);
      if (atLeast(version, '1.5')) expect(r.status, path).toBe(200);
      else {
        expect(r.status, path).toBe(404);
        expect(r.headers.get('x-ratelimit-cost')).toBeNull();
        const unknown = await send(`${versionPrefix(version)}/pylon/linkedin/nothing/`);
        expect((await j(r)).error.replace(path, '')).toBe((await j(unknown)).error.replace('/pylon/linkedin/nothing/', ''));
      }
    }
  });
});

describe('strategy tasks over HTTP', () => {
  async function recording(send: Awaited<ReturnType<typeof setup>>['send'], version: string) {
    const json = { 'content-type': 'application/json' };
    const compiled = await j(await send(`${versionPrefix(version)}/pylon/linkedin/compile`, { method: 'POST', headers: json, body: JSON.stringify({ csdl: 'li.type exists' }) }));
    const started = await j(await send(`${versionPrefix(version)}/pylon/linkedin/start`, { method: 'POST', headers: json, body: JSON.stringify({ hash: compiled.hash, name: 'li' }) }));
    return started.id as string;
  }
  const strategyBody = (subscription_id: string) =>
    JSON.stringify({
      service: 'linkedin',
      subscription_id,
      name: 'Ruby client test - top domains',
      type: 'strategy',
      parameters: { insight: 'top_domains', version: 1, parameters: { comparison_audience: 'global', audience: { industries: ['internet'] } } },
    });

  it('answers the Ruby client 202 {id} with X-Strategy-Tasks-Queued and -Queue-Limit, then get and list by type', async () => {
    const { send } = await setup();
    const rec = await recording(send, '1.5');
    const r = await send('/v1.5/pylon/linkedin/task', { method: 'POST', headers: { 'content-type': 'application/json' }, body: strategyBody(rec) });
    expect(r.status).toBe(202);
    expect(r.headers.get('x-strategy-tasks-queued')).toBe('1');
    expect(r.headers.get('x-strategy-tasks-queue-limit')).toBe('200');
    expect(r.headers.get('x-analysis-tasks-queued')).toBeNull();
    const { id } = await j(r);
    expect(id).toMatch(/^[0-9a-f]{40}$/);
    expect(await j(await send(`/v1.5/pylon/linkedin/task/strategy/${id}`))).toMatchObject({ id, type: 'strategy', status: 'queued' });
    expect(await j(await send('/v1.5/pylon/linkedin/task/strategy'))).toMatchObject({ count: 1, tasks: [{ id }] });
    expect(await j(await send('/v1.5/pylon/linkedin/task/analysis'))).toMatchObject({ count: 0 });
  });

  it.each(VERSIONS.filter((v) => atLeast(v.id, '1.4') && !atLeast(v.id, '1.5')).map((v) => v.id))('in %s the same request is a 400 naming the valid type', async (version) => {
    const { send } = await setup();
    const rec = await recording(send, version);
    const r = await send(`/v${version}/pylon/linkedin/task`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: strategyBody(rec) });
    expect(r.status).toBe(400);
    expect(await j(r)).toEqual({ error: 'type is invalid; valid values are: analysis' });
  });
});
