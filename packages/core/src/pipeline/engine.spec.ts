import { describe, expect, it } from 'vitest';
import { Engine } from './engine.ts';
import { ENDPOINTS, endpointById } from '../catalogue/endpoints.ts';
import { MemoryEventStore } from '../kernel/memory-store.ts';
import { seededIds } from '../kernel/ports.ts';
import { WRITE_POLICIES } from '../kernel/write-policy.ts';
import { BadRequest } from '../calls/errors.ts';
import type { Clock } from '../kernel/ports.ts';

const at = (iso: string) => Date.parse(iso);

function setup(startIso = '2026-01-01T08:05:37Z') {
  const time = { now: at(startIso) };
  const clock: Clock = { now: () => time.now };
  const store = new MemoryEventStore();
  const engine = new Engine({
    store,
    clock,
    ids: seededIds(7),
    handlers: {
      'core.validate': (ctx) => {
        if (ctx.params.raw['csdl'] === 'bad') throw new BadRequest('bad filter');
        return { body: { ok: true } };
      },
      'insight.analyze': () => ({ body: { analysed: true } }),
    },
  });
  return { engine, store, time };
}

const creds = { username: 'alice', apiKey: 'k-0123456789' };

describe('engine.call: the order of judgement (docs/contract.md#judgement-order)', () => {
  it('charges the cost and reports the five figures, reset on the minute mark an hour on', async () => {
    const { engine } = setup();
    await engine.openAccount({ username: 'alice', api_key: creds.apiKey });
    const a = await engine.call({ version: '1.5', endpoint: 'core.validate', credentials: creds, params: {} });
    expect(a.status).toBe(200);
    expect(a.rate).toEqual({ limit: 10000, remaining: 9995, cost: 5, reset: at('2026-01-01T09:05:00Z') / 1000, resetTtl: 3563 });
    const b = await engine.call({ version: '1.5', endpoint: 'core.validate', credentials: creds, params: {} });
    expect(b.rate?.remaining).toBe(9990);
  });

  it('takes the endpoint already found by the caller (the HTTP face routes to it), and refuses one the call does not name', async () => {
    const { engine } = setup();
    await engine.openAccount({ username: 'alice', api_key: creds.apiKey });
    const a = await engine.call({ version: '1.5', endpoint: 'core.validate', credentials: creds, params: {} }, endpointById('core.validate'));
    expect(a.status).toBe(200);
    expect(a.rate?.cost).toBe(5);
    await expect(engine.call({ version: '1.5', endpoint: 'core.validate', credentials: creds }, endpointById('insight.analyze'))).rejects.toThrow(/not the one the call names/);
    expect((await engine.call({ version: '1.5', endpoint: 'no.such' as 'core.validate', credentials: creds })).status).toBe(404);
  });

  it('answers 401 for an unknown user or a wrong key, and charges nothing', async () => {
    const { engine, store } = setup();
    await engine.openAccount({ username: 'alice', api_key: creds.apiKey });
    const head = await store.head();
    expect((await engine.call({ version: '1.5', endpoint: 'core.validate', credentials: { username: 'bob', apiKey: 'x' } })).status).toBe(401);
    expect((await engine.call({ version: '1.5', endpoint: 'core.validate', credentials: { username: 'alice', apiKey: 'wrong-key-1' } })).status).toBe(401);
    expect((await engine.call({ version: '1.5', endpoint: 'core.validate' })).status).toBe(401);
    expect(await store.head()).toBe(head);
  });

  it('reports cost 0 on a 401 for every endpoint that reports an allowance: its headers say what it was charged, nothing', async () => {
    const { engine, store } = setup();
    await engine.openAccount({ username: 'alice', api_key: creds.apiKey });
    const head = await store.head();
    for (const e of ENDPOINTS.filter((x) => x.allowance !== 'none' && x.cost > 0)) {
      for (const credentials of [undefined, { username: 'bob', apiKey: 'bob-key-0001' }, { username: 'alice', apiKey: 'wrong-key-1' }]) {
        const a = await engine.call({ version: '1.5', endpoint: e.id, ...(credentials ? { credentials } : {}) }, e);
        expect(a.status, e.id).toBe(401);
        expect(a.rate, e.id).toMatchObject({ cost: 0, remaining: 10000, limit: 10000 });
      }
    }
    expect(await store.head()).toBe(head);
  });

  it('answers 401 to the old key once the key is replaced, and 200 to the new one', async () => {
    const { engine } = setup();
    await engine.openAccount({ username: 'alice', api_key: creds.apiKey });
    expect((await engine.call({ version: '1.5', endpoint: 'core.validate', credentials: creds })).status).toBe(200);
    const { api_key } = await engine.replaceApiKey('alice');
    expect(api_key).not.toBe(creds.apiKey);
    expect((await engine.call({ version: '1.5', endpoint: 'core.validate', credentials: creds })).status).toBe(401);
    expect((await engine.call({ version: '1.5', endpoint: 'core.validate', credentials: { username: 'alice', apiKey: api_key } })).status).toBe(200);
  });

  it('answers 403 to a denied account before looking at its allowance', async () => {
    const { engine } = setup();
    await engine.openAccount({ username: 'alice', api_key: creds.apiKey });
    await engine.deny('alice', 'spam');
    const a = await engine.call({ version: '1.5', endpoint: 'core.validate', credentials: creds });
    expect(a.status).toBe(403);
    expect(a.rate?.remaining).toBe(10000);
    // Nothing charged, cost 0: a denial never reads as a rate limit (cost over remaining), however little remains.
    expect(a.rate?.cost).toBe(0);
  });

  it('refuses with 403 before v1.2 and 429 from v1.2 when the cost exceeds what remains', async () => {
    const { engine } = setup();
    await engine.openAccount({ username: 'alice', api_key: creds.apiKey, package: { credits_per_hour: 7 } });
    expect((await engine.call({ version: '1.0', endpoint: 'core.validate', credentials: creds })).status).toBe(200);
    const old = await engine.call({ version: '1.1', endpoint: 'core.validate', credentials: creds });
    const cur = await engine.call({ version: '1.2', endpoint: 'core.validate', credentials: creds });
    expect(old.status).toBe(403);
    expect(cur.status).toBe(429);
    expect(cur.rate!.cost).toBeGreaterThan(cur.rate!.remaining);
  });

  it('charges a call that fails validation (it was served) but not one that is not implemented', async () => {
    const { engine } = setup();
    await engine.openAccount({ username: 'alice', api_key: creds.apiKey });
    const bad = await engine.call({ version: '1.5', endpoint: 'core.validate', credentials: creds, params: { csdl: 'bad' } });
    expect(bad).toMatchObject({ status: 400, body: { error: 'bad filter' } });
    expect(bad.rate?.remaining).toBe(9995);
    const missing = await engine.call({ version: '1.5', endpoint: 'historics.prepare', credentials: creds });
    expect(missing.status).toBe(501);
    expect(missing.rate?.cost).toBe(0);
    expect((await engine.accountView('alice')).allowances.general.remaining).toBe(9995);
  });

  it('draws analyze calls from their own allowance', async () => {
    const { engine } = setup();
    await engine.openAccount({ username: 'alice', api_key: creds.apiKey, package: { analyze_credits_per_hour: 50 } });
    const a = await engine.call({ version: '1.5', endpoint: 'insight.analyze', credentials: creds });
    expect(a.rate).toMatchObject({ limit: 50, remaining: 25, cost: 25 });
    expect((await engine.accountView('alice')).allowances.general.remaining).toBe(10000);
  });

  it('opens a new window at the first call after the reset', async () => {
    const { engine, time } = setup();
    await engine.openAccount({ username: 'alice', api_key: creds.apiKey });
    await engine.call({ version: '1.5', endpoint: 'core.validate', credentials: creds });
    time.now = at('2026-01-01T09:05:00Z');
    const a = await engine.call({ version: '1.5', endpoint: 'core.validate', credentials: creds });
    expect(a.rate).toMatchObject({ remaining: 9995, reset: at('2026-01-01T10:05:00Z') / 1000 });
  });
});

describe("accountView: the operator's look at an account another process owns", () => {
  it('reads what another writer charged, though this engine trusts its cache as its accounts\' one writer', async () => {
    const time = { now: at('2026-01-01T08:05:37Z') };
    const clock: Clock = { now: () => time.now };
    const store = new MemoryEventStore();
    const handlers = { 'core.validate': () => ({ body: { ok: true } }) };
    // Two processes over one store, each trusting its cache (as workers that own their accounts do).
    const viewer = new Engine({ store, clock, ids: seededIds(1), handlers, writePolicy: WRITE_POLICIES['account-owner'] });
    const owner = new Engine({ store, clock, ids: seededIds(2), handlers, writePolicy: WRITE_POLICIES['account-owner'] });
    await viewer.openAccount({ username: 'alice', api_key: creds.apiKey });
    expect((await viewer.accountView('alice')).allowances.general.remaining).toBe(10000);
    for (let i = 0; i < 3; i++) expect((await owner.call({ version: '1.5', endpoint: 'core.validate', credentials: creds, params: {} })).status).toBe(200);
    await owner.deny('alice', 'owed');
    const seen = await viewer.accountView('alice');
    expect(seen.allowances.general.remaining).toBe(9985);
    expect(seen.denied).toBe(true);
    // A call through the viewer, decided on its stale cache, is refused at append by its read guards and
    // decided again on what the owner wrote.
    expect((await viewer.call({ version: '1.5', endpoint: 'core.validate', credentials: creds, params: {} })).status).toBe(403);
  });
});
