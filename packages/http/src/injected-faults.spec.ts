import { describe, expect, it } from 'vitest';
import { Engine } from '@sdp/core';
import { MemoryEventStore, seededIds } from '@sdp/core/kernel';
import { ManualClock } from '@sdp/clock';
import { createFetchHandler } from './fetch-handler.ts';
import type { InjectedFault } from './api-handler.ts';

const KEY = 'alice-key-0001';

async function setup(fault: InjectedFault | undefined) {
  let handled = 0;
  const engine = new Engine({ store: new MemoryEventStore(), clock: new ManualClock(Date.parse('2026-03-02T08:05:37Z')), ids: seededIds(7), handlers: { 'push.get': () => ((handled++), { body: {} }) } });
  await engine.openAccount({ username: 'alice', api_key: KEY });
  const seen: { username: string | null; endpoint: string }[] = [];
  const fetch = createFetchHandler(engine, { faults: (t) => (seen.push(t), fault ? Promise.resolve(fault) : undefined) });
  const r = await fetch(new Request('http://sdp.test/v1.5/push/get', { headers: { authorization: `alice:${KEY}` } }));
  return { r, seen, handled: () => handled, remaining: async () => (await engine.accountView('alice')).allowances.general.remaining };
}

describe('the faults option of the HTTP face', () => {
  it('is asked with the caller and the catalogue endpoint; no fault lets the call through', async () => {
    const { r, seen, handled } = await setup(undefined);
    expect(r.status).toBe(200);
    expect(seen).toEqual([{ username: 'alice', endpoint: 'push.get' }]);
    expect(handled()).toBe(1);
  });

  it('an injected 503 answers instead of the engine, with Retry-After and nothing charged', async () => {
    const { r, handled, remaining } = await setup({ kind: 'answer', status: 503, retryAfter: 3 });
    expect(r.status).toBe(503);
    expect(r.headers.get('retry-after')).toBe('3');
    expect(r.headers.get('x-api-version')).toBe('1.5');
    expect(handled()).toBe(0);
    expect(await remaining()).toBe(10000);
  });

  it('a dropped connection is a network error on the fetch face', async () => {
    const { r, handled } = await setup({ kind: 'drop' });
    expect(r.type).toBe('error');
    expect(handled()).toBe(0);
  });
});
