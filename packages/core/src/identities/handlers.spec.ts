import type { EndpointId } from '../catalogue/endpoints.ts';
import { describe, expect, it } from 'vitest';
import { MemoryEventStore } from '../kernel/memory-store.ts';
import { seededIds, type Clock } from '../kernel/ports.ts';
import type { VersionId } from '../catalogue/versions.ts';
import { createEngine } from '../platform.ts';

const creds = { username: 'alice', apiKey: 'alice-key-0001' };

async function setup(pkg?: Record<string, unknown>) {
  const time = { now: Date.parse('2026-01-01T08:05:37Z') };
  const clock: Clock = { now: () => time.now };
  const engine = createEngine({ store: new MemoryEventStore(), clock, ids: seededIds(3) });
  await engine.openAccount({ username: 'alice', api_key: creds.apiKey, ...(pkg ? { package: pkg } : {}) });
  const call = (endpoint: EndpointId, params: Record<string, unknown> = {}, key = creds.apiKey, version: VersionId = '1.5') =>
    engine.call({ version, endpoint, credentials: { username: 'alice', apiKey: key }, params });
  return { engine, time, call };
}

describe('identity endpoints through engine.call', () => {
  it('creates an identity (201) whose api_key of 32 hex calls in place of the account key', async () => {
    const { call } = await setup();
    const a = await call('account.identity.create', { label: 'team' });
    expect(a.status).toBe(201);
    expect(a.rate).toMatchObject({ cost: 5, remaining: 9995 });
    const body = a.body as Record<string, unknown>;
    expect(body).toMatchObject({ label: 'team', status: 'active', master: false, expires_at: null });
    expect(body.id).toMatch(/^[a-f0-9]{32}$/);
    expect(body.api_key).toMatch(/^[a-f0-9]{32}$/);
    const viaKey = await call('account.identity.get', { id: body.id }, body.api_key as string);
    expect(viaKey.status).toBe(200);
    expect(viaKey.body).not.toHaveProperty('api_key');
  });

  it('answers 409 to a duplicate label', async () => {
    const { call } = await setup();
    await call('account.identity.create', { label: 'team' });
    const b = await call('account.identity.create', { label: 'team' });
    expect(b).toMatchObject({ status: 409, body: { error: 'An Identity with the label "team" already exists' } });
  });

  it('lists with pagination and a label filter', async () => {
    const { call } = await setup();
    for (let i = 0; i < 7; i++) await call('account.identity.create', { label: `l${i}` });
    const p2 = await call('account.identity.list', { page: '2', per_page: '3' });
    expect(p2.body).toMatchObject({ count: 7, page: 2, pages: 3, per_page: 3 });
    expect((p2.body as { identities: { label: string }[] }).identities.map((i) => i.label)).toEqual(['l3', 'l4', 'l5']);
    const one = await call('account.identity.list', { label: 'l6' });
    expect(one.body).toMatchObject({ count: 1, per_page: 25, identities: [{ label: 'l6' }] });
  });

  it('a disabled identity\'s key is not authenticated (401); enabling it again lets it call', async () => {
    const { call } = await setup();
    const id = (await call('account.identity.create', { label: 'team', status: 'disabled' })).body as { id: string; api_key: string };
    expect((await call('account.identity.list', {}, id.api_key)).status).toBe(401);
    const up = await call('account.identity.update', { id: id.id, status: 'active', master: 'true' });
    expect(up).toMatchObject({ status: 200, body: { status: 'active', master: true } });
    expect((await call('account.identity.list', {}, id.api_key)).status).toBe(200);
  });

  it('update of an unknown identity answers 404 Identity not found', async () => {
    const { call } = await setup();
    expect(await call('account.identity.update', { id: 'c'.repeat(32), label: 'x' })).toMatchObject({ status: 404, body: { error: 'Identity not found' } });
  });

  it('deletes (204), then every call on it and its tokens and limits answers 410, and its key is refused', async () => {
    const { call } = await setup();
    const id = (await call('account.identity.create', { label: 'team' })).body as { id: string; api_key: string };
    await call('account.identity.token.create', { identity_id: id.id, service: 'facebook', token: 'tok' });
    await call('account.identity.limit.create', { identity_id: id.id, service: 'facebook', total_allowance: 100 });
    expect((await call('account.identity.delete', { id: id.id })).status).toBe(204);
    for (const [endpoint, params] of [
      ['account.identity.get', { id: id.id }],
      ['account.identity.update', { id: id.id, label: 'x' }],
      ['account.identity.delete', { id: id.id }],
      ['account.identity.token.list', { identity_id: id.id }],
      ['account.identity.token.get', { identity_id: id.id, service: 'facebook' }],
      ['account.identity.token.create', { identity_id: id.id, service: 'linkedin', token: 't' }],
      ['account.identity.token.update', { identity_id: id.id, service: 'facebook', token: 't' }],
      ['account.identity.token.delete', { identity_id: id.id, service: 'facebook' }],
      ['account.identity.limit.get', { identity_id: id.id, service: 'facebook' }],
      ['account.identity.limit.create', { identity_id: id.id, service: 'linkedin', total_allowance: 1 }],
      ['account.identity.limit.update', { identity_id: id.id, service: 'facebook', total_allowance: 1 }],
      ['account.identity.limit.delete', { identity_id: id.id, service: 'facebook' }],
    ] as const) {
      expect((await call(endpoint, params)).status, endpoint).toBe(410);
    }
    expect((await call('account.identity.list', {}, id.api_key)).status).toBe(401);
    expect((await call('account.identity.limit.list', { service: 'facebook' })).body).toMatchObject({ count: 0, limits: [] });
  });

  it('tokens: create 201, 409 when it exists, get, put 200 or 201, list, delete 204 then 410', async () => {
    const { call } = await setup();
    const { id } = (await call('account.identity.create', { label: 'team' })).body as { id: string };
    const c = await call('account.identity.token.create', { identity_id: id, service: 'facebook', token: 'tok1' });
    expect(c).toMatchObject({ status: 201, body: { service: 'facebook', token: 'tok1', expires_at: null }, rate: { cost: 25 } });
    expect((await call('account.identity.token.create', { identity_id: id, service: 'facebook', token: 'x' })).status).toBe(409);
    expect(await call('account.identity.token.update', { identity_id: id, service: 'facebook', token: 'tok2' })).toMatchObject({ status: 200, body: { token: 'tok2' } });
    expect((await call('account.identity.token.update', { identity_id: id, service: 'linkedin', token: 'tok3' })).status).toBe(201);
    expect(await call('account.identity.token.get', { identity_id: id, service: 'facebook' })).toMatchObject({ status: 200, body: { token: 'tok2' } });
    expect((await call('account.identity.token.list', { identity_id: id })).body).toMatchObject({ count: 2, tokens: [{ service: 'facebook' }, { service: 'linkedin' }] });
    expect((await call('account.identity.token.delete', { identity_id: id, service: 'facebook' })).status).toBe(204);
    expect((await call('account.identity.token.get', { identity_id: id, service: 'facebook' })).status).toBe(410);
    expect((await call('account.identity.token.get', { identity_id: id, service: 'other' })).status).toBe(404);
  });

  it('a malformed identity_id answers 400 identity_id must be a valid hash', async () => {
    const { call } = await setup();
    expect(await call('account.identity.token.get', { identity_id: 'nope', service: 'facebook' })).toMatchObject({
      status: 400,
      body: { error: 'identity_id must be a valid hash' },
    });
  });

  it('limits: create 201, get, put 200 or 201, list by service, delete 204 then 404; bad service 400', async () => {
    const { call } = await setup();
    const { id } = (await call('account.identity.create', { label: 'team' })).body as { id: string };
    const c = await call('account.identity.limit.create', { identity_id: id, service: 'facebook', total_allowance: 100000, analyze_queries: 50 });
    expect(c).toMatchObject({ status: 201, body: { id, service: 'facebook', total_allowance: 100000, analyze_queries: 50 }, rate: { cost: 25 } });
    expect(await call('account.identity.limit.create', { identity_id: id, service: 'myspace', total_allowance: 1 })).toMatchObject({
      status: 400,
      body: { error: 'service is invalid; valid values are: facebook,linkedin' },
    });
    expect(await call('account.identity.limit.update', { identity_id: id, service: 'facebook', analyze_queries: '60' })).toMatchObject({
      status: 200,
      body: { total_allowance: 100000, analyze_queries: 60 },
    });
    expect((await call('account.identity.limit.update', { identity_id: id, service: 'linkedin', total_allowance: 5 })).status).toBe(201);
    expect((await call('account.identity.limit.get', { identity_id: id, service: 'facebook' })).body).toMatchObject({ analyze_queries: 60 });
    const list = await call('account.identity.limit.list', { service: 'facebook' });
    expect(list).toMatchObject({ status: 200, body: { count: 1, page: 1, pages: 1, per_page: 25, limits: [{ id, service: 'facebook' }] }, rate: { cost: 25 } });
    expect((await call('account.identity.limit.list', { service: 'myspace' })).status).toBe(400);
    expect((await call('account.identity.limit.delete', { identity_id: id, service: 'facebook' })).status).toBe(204);
    expect((await call('account.identity.limit.get', { identity_id: id, service: 'facebook' })).status).toBe(404);
  });
});

describe('identity limits narrow what its key may use', () => {
  it('total_allowance refuses the identity once spent (429 from 1.2, 403 before) while the account key still calls', async () => {
    const { call } = await setup();
    const id = (await call('account.identity.create', { label: 'team' })).body as { id: string; api_key: string };
    await call('account.identity.limit.create', { identity_id: id.id, service: 'facebook', total_allowance: 12 });
    expect((await call('account.identity.list', {}, id.api_key)).status).toBe(200);
    expect((await call('account.identity.list', {}, id.api_key)).status).toBe(200);
    const refused = await call('account.identity.list', {}, id.api_key);
    expect(refused.status).toBe(429);
    expect(refused.rate!.cost).toBeGreaterThan(refused.rate!.remaining);
    expect((await call('account.identity.list', {}, id.api_key, '1.1')).status).toBe(403);
    expect((await call('account.identity.list')).status).toBe(200);
  });

  it('analyze_queries counts analyze calls of the identity; general calls are not narrowed by it', async () => {
    const { call, engine } = await setup();
    engine.register({ 'insight.analyze': () => ({ body: {} }) });
    const id = (await call('account.identity.create', { label: 'team' })).body as { id: string; api_key: string };
    await call('account.identity.limit.create', { identity_id: id.id, service: 'facebook', analyze_queries: 2 });
    expect((await call('insight.analyze', {}, id.api_key)).status).toBe(200);
    expect((await call('insight.analyze', { service: 'facebook' }, id.api_key)).status).toBe(200);
    expect((await call('insight.analyze', {}, id.api_key)).status).toBe(429);
    expect((await call('insight.analyze', { service: 'linkedin' }, id.api_key)).status).toBe(200);
    for (let i = 0; i < 5; i++) expect((await call('account.identity.list', {}, id.api_key)).status).toBe(200);
  });
});
