import { describe, expect, it } from 'vitest';
import { Engine } from '@sdp/core';
import { MemoryEventStore, seededIds } from '@sdp/core/kernel';
import { ManualClock } from '@sdp/clock';
import { createFetchHandler } from './fetch-handler.ts';
import type { RateLimitHeaders } from './api-handler.ts';

const T0 = Date.parse('2026-03-02T08:05:37Z');
const KEY = 'alice-key-0001';

async function call(style: RateLimitHeaders | undefined, path = '/v1.5/push/get') {
  const engine = new Engine({ store: new MemoryEventStore(), clock: new ManualClock(T0), ids: seededIds(7), handlers: { 'push.get': () => ({ body: {} }), 'insight.analyze': () => ({ body: {} }) } });
  await engine.openAccount({ username: 'alice', api_key: KEY, package: { credits_per_hour: 500, analyze_credits_per_hour: 300 } });
  const fetch = createFetchHandler(engine, style ? { rateLimitHeaders: style } : {});
  return fetch(new Request(`http://sdp.test${path}`, { method: path.includes('analyze') ? 'POST' : 'GET', headers: { authorization: `alice:${KEY}`, 'content-type': 'application/json' }, body: path.includes('analyze') ? '{}' : null }));
}

describe('rate-limit fields: x, ietf or both', () => {
  it('x (the default) sends the five X-RateLimit-* fields only', async () => {
    const r = await call(undefined);
    expect(r.headers.get('x-ratelimit-remaining')).toBe('499');
    expect(r.headers.get('ratelimit')).toBeNull();
    expect(r.headers.get('ratelimit-policy')).toBeNull();
  });

  it('ietf sends RateLimit-Policy and RateLimit with the same figures, and no X-RateLimit-*', async () => {
    const r = await call('ietf');
    expect(r.headers.get('ratelimit-policy')).toBe('"general";q=500;w=3600');
    expect(r.headers.get('ratelimit')).toBe('"general";r=499;t=3563');
    expect(r.headers.get('x-ratelimit-limit')).toBeNull();
  });

  it('both sends both, agreeing; the analyze allowance is its own policy', async () => {
    const r = await call('both', '/v1.5/insight/analyze');
    const limit = r.headers.get('x-ratelimit-limit');
    const remaining = r.headers.get('x-ratelimit-remaining');
    const ttl = r.headers.get('x-ratelimit-reset-ttl');
    expect(r.headers.get('ratelimit-policy')).toBe(`"analyze";q=${limit};w=3600`);
    expect(r.headers.get('ratelimit')).toBe(`"analyze";r=${remaining};t=${ttl}`);
    expect(limit).toBe('300');
  });
});
