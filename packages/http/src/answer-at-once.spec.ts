import { describe, expect, it } from 'vitest';
import type { AddressInfo } from 'node:net';
import { createEngine, type CallAnswer } from '@sdp/core';
import { MemoryEventStore, StoreUnavailable, seededIds, type AppendResult, type StreamAppend } from '@sdp/core/kernel';
import { ManualClock } from '@sdp/clock';
import { createApiHandler } from './api-handler.ts';
import { createNodeServer } from './node-listener.ts';
import type { AccessEntry, WireHandler, WireRequest, WireResponse } from './wire.ts';

const T0 = Date.parse('2026-03-02T08:05:37Z');
const KEY = 'alice-key-0001';

/** Two engines alike, one behind `answer` (values where nothing waited), one behind `call` (promises). */
async function pair() {
  const made = [];
  for (let i = 0; i < 2; i++) {
    const engine = createEngine({ store: new MemoryEventStore(), clock: new ManualClock(T0), ids: seededIds(3) });
    await engine.openAccount({ username: 'alice', api_key: KEY });
    const log: AccessEntry[] = [];
    made.push({ engine, log, options: { requestIds: false, onAccess: (e: AccessEntry) => log.push({ ...e, ms: 0, time: '' }) } });
  }
  const [a, b] = made as [(typeof made)[0], (typeof made)[0]];
  return {
    atOnce: createApiHandler({ call: (call, endpoint) => a.engine.answer(call, endpoint) }, a.options),
    later: createApiHandler(b.engine, b.options),
    logs: [a.log, b.log],
    engines: [a.engine, b.engine],
  };
}

/** A request whose body the face already holds (as the Node face holds a small one). */
function request(method: string, url: string, body: string, headers: Record<string, string>): WireRequest {
  const bytes = new TextEncoder().encode(body);
  return { method, url, header: (name) => headers[name], readBody: () => Promise.resolve(bytes), body: bytes };
}

const requests = (): WireRequest[] => [
  request('POST', '/v1.5/validate', JSON.stringify({ csdl: 'fb.content contains "tea"' }), { authorization: `alice:${KEY}`, 'content-type': 'application/json' }),
  request('POST', '/v1.5/validate', JSON.stringify({ csdl: 'fb.content contains' }), { authorization: `alice:${KEY}`, 'content-type': 'application/json' }),
  request('POST', '/v1.5/validate', JSON.stringify({ csdl: 'fb.content contains "tea"' }), { authorization: 'alice:not-the-key-01', 'content-type': 'application/json' }),
  request('POST', '/v1.5/validate', '{"csdl": ', { authorization: `alice:${KEY}`, 'content-type': 'application/json' }),
  request('GET', '/v1.5/usage', '', { authorization: `alice:${KEY}` }),
  request('POST', '/v1.5/validate', JSON.stringify({ csdl: 'fb.content contains "tea"' }), { authorization: `alice:${KEY}`, 'content-type': 'application/json', 'idempotency-key': 'k1' }),
  request('GET', '/v1.5/no-such-path', '', {}),
  request('HEAD', '/v1.5/usage', '', { authorization: `alice:${KEY}` }),
  request('OPTIONS', '/v1.5/validate', '', {}),
  request('DELETE', '/v1.5/validate', '', { authorization: `alice:${KEY}` }),
  request('GET', '/v1.5/usage', '', { authorization: 'alice:one, alice:two' }),
];

/**
 * The first call of an account reads its streams from the store; from the second on, the handler over
 * `answer` answers at once (checked), and both engines have taken the same calls.
 */
async function warm(atOnce: WireHandler, later: WireHandler): Promise<void> {
  await atOnce(requests()[0]!);
  await later(requests()[0]!);
  expect(atOnce(requests()[0]!)).not.toBeInstanceOf(Promise);
  await later(requests()[0]!);
}

describe('the API handler over engine.answer: a call that waits on nothing is answered at once', () => {
  it('answers the common call as a value, with the status, headers, body, log line and events of the promise path', async () => {
    const { atOnce, later, logs, engines } = await pair();
    await warm(atOnce, later);
    for (const r of requests()) {
      const now = atOnce(r);
      const awaited: WireResponse = await now;
      expect(awaited).toEqual(await later(r));
    }
    expect(logs[0]).toEqual(logs[1]);
    const [events0, events1] = [await engines[0]!.store.readAll(), await engines[1]!.store.readAll()];
    expect(events0.map((e) => [e.stream, e.type, e.data])).toEqual(events1.map((e) => [e.stream, e.type, e.data]));
  });

  it('a store whose write fails at once (away, or an unexpected error) is answered as the promise path answers it: the same 503 or 500, headers, log line and errors told', async () => {
    /** A memory store whose writes fail while `failing` is set: thrown by appendNow, so rejected by append. */
    class Failing extends MemoryEventStore {
      failing: Error | undefined;
      override appendNow(batch: StreamAppend[]): AppendResult {
        if (this.failing) throw this.failing;
        return super.appendNow(batch);
      }
    }
    const made = [];
    for (let i = 0; i < 2; i++) {
      const store = new Failing();
      const errors: unknown[] = [];
      const engine = createEngine({ store, clock: new ManualClock(T0), ids: seededIds(3), onError: (e) => errors.push(e) });
      await engine.openAccount({ username: 'alice', api_key: KEY });
      const log: AccessEntry[] = [];
      const told: unknown[] = [];
      const options = { requestIds: false, onAccess: (e: AccessEntry) => log.push({ ...e, ms: 0, time: '' }), onError: (e: unknown) => told.push(e) };
      made.push({ store, engine, log, errors, told, options });
    }
    const [a, b] = made as [(typeof made)[0], (typeof made)[0]];
    const atOnce = createApiHandler({ call: (call, endpoint) => a.engine.answer(call, endpoint) }, a.options);
    const later = createApiHandler(b.engine, b.options);
    await warm(atOnce, later);
    for (const failure of [new StoreUnavailable('the disk went away'), new Error('the store broke')]) {
      a.store.failing = b.store.failing = failure;
      for (const r of [requests()[0]!, requests()[2]!, requests()[4]!]) expect(await atOnce(r)).toEqual(await later(r));
    }
    a.store.failing = b.store.failing = undefined;
    expect(await atOnce(requests()[0]!)).toEqual(await later(requests()[0]!));
    expect(a.log).toEqual(b.log);
    expect(a.log.map((l) => l.status)).toEqual([200, 200, 503, 503, 503, 500, 500, 500, 200]);
    expect([a.errors.length, a.told.length]).toEqual([b.errors.length, b.told.length]);
    expect(a.errors.length).toBeGreaterThan(0);
  });
});

describe('an answerer or a handler that answers with a thenable of its own (another promise library, another realm)', () => {
  it('is awaited as a promise is, on the handler and the Node listener alike', async () => {
    const { engines } = await pair();
    const engine = engines[0]!;
    const thenable = <T>(p: Promise<T>): PromiseLike<T> => ({ then: (ok, fail) => p.then(ok, fail) });
    const handler = createApiHandler({ call: (call, endpoint) => thenable(engine.call(call, endpoint)) as Promise<CallAnswer> }, { requestIds: false });
    const plain = createApiHandler(engines[1]!, { requestIds: false });
    for (const r of requests()) expect(await handler(r)).toEqual(await plain(r));
    const server = createNodeServer((req) => thenable(Promise.resolve(handler(req))) as Promise<WireResponse>);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/v1.5/usage`, { headers: { authorization: `alice:${KEY}` } });
      expect([res.status, res.headers.get('x-ratelimit-cost')]).toEqual([200, '25']);
    } finally {
      await new Promise((r) => server.close(r));
    }
  });
});
