import { describe, expect, it } from 'vitest';
import { BadRequest } from '../calls/errors.ts';
import type { ApiCall } from '../handling/handler.ts';
import { MemoryEventStore } from '../kernel/memory-store.ts';
import { seededIds, type Clock } from '../kernel/ports.ts';
import { Engine } from './engine.ts';

const creds = { username: 'alice', apiKey: 'k-0123456789' };

function setup() {
  const clock: Clock = { now: () => Date.parse('2026-01-01T08:05:37Z') };
  const store = new MemoryEventStore();
  const told: { call: ApiCall; first: number; last: number }[] = [];
  const engine = new Engine({
    store,
    clock,
    ids: seededIds(3),
    handlers: {
      'core.validate': (ctx) => {
        if (ctx.params.raw['csdl'] === 'bad') throw new BadRequest('bad filter');
        return { body: { ok: true } };
      },
    },
    onCallWritten: (call, first, last) => told.push({ call, first, last }),
  });
  return { engine, store, told };
}

describe('EngineOptions.onCallWritten: the positions a call wrote', () => {
  it('tells the call and the range its durable append took, which are exactly the events written for it', async () => {
    const { engine, store, told } = setup();
    await engine.openAccount({ username: 'alice', api_key: creds.apiKey });
    expect(told).toEqual([]);
    const before = await store.head();
    const call: ApiCall = { version: '1.5', endpoint: 'core.validate', credentials: creds, params: {} };
    expect((await engine.call(call)).status).toBe(200);
    expect(told).toHaveLength(1);
    expect(told[0]!.call).toBe(call);
    const written = await store.readAll(before);
    expect([told[0]!.first, told[0]!.last]).toEqual([written[0]!.position, written[written.length - 1]!.position]);
    expect(written.every((e) => e.stream.endsWith(':alice'))).toBe(true);
  });

  it('tells a charged refusal (its charge is written) but not a call that wrote nothing', async () => {
    const { engine, store, told } = setup();
    await engine.openAccount({ username: 'alice', api_key: creds.apiKey });
    expect((await engine.call({ version: '1.5', endpoint: 'core.validate', credentials: creds, params: { csdl: 'bad' } })).status).toBe(400);
    expect(told).toHaveLength(1);
    expect(told[0]!.last).toBe(await store.head());
    expect((await engine.call({ version: '1.5', endpoint: 'core.validate', credentials: { ...creds, apiKey: 'wrong-key-01' } })).status).toBe(401);
    expect(told).toHaveLength(1);
  });

  it('answers a written call as it would have when the hook throws', async () => {
    const engine = new Engine({
      store: new MemoryEventStore(),
      clock: { now: () => Date.parse('2026-01-01T08:05:37Z') },
      ids: seededIds(3),
      handlers: { 'core.validate': () => ({ body: { ok: true } }) },
      onCallWritten: () => {
        throw new Error('tracer broke');
      },
    });
    await engine.openAccount({ username: 'alice', api_key: creds.apiKey });
    const answer = await engine.call({ version: '1.5', endpoint: 'core.validate', credentials: creds, params: {} });
    expect([answer.status, answer.rate?.remaining]).toEqual([200, 9995]);
  });
});
