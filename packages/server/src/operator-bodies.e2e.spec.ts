import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultSettings } from './settings.ts';
import { startServer, type RunningSdp } from './server.ts';

let sdp: RunningSdp;
beforeAll(async () => {
  sdp = await startServer({ ...defaultSettings(), port: 0, store: 'memory:', clock: 'manual', clockStartMs: Date.UTC(2026, 0, 5, 9), adminToken: 'op-token', accessLog: 'off' });
});
afterAll(() => sdp.close());

async function admin(method: string, path: string, body?: unknown): Promise<{ status: number; json: { error?: string } & Record<string, unknown> }> {
  const res = await fetch(`${sdp.url}/_admin${path}`, { method, headers: { authorization: 'Bearer op-token', 'content-type': 'application/json' }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : {} };
}

describe('the operator API reads its bodies with zod schemas: a 400 names each field that does not fit', () => {
  it('POST /_admin/accounts', async () => {
    expect(await admin('POST', '/accounts', {})).toMatchObject({ status: 400, json: { error: 'username: is required (a string)' } });
    expect(await admin('POST', '/accounts', { username: 'ann', api_key: 12 })).toMatchObject({ status: 400, json: { error: 'api_key: must be a string' } });
    expect(await admin('POST', '/accounts', { username: 7, api_key: false })).toMatchObject({ status: 400, json: { error: 'username: is required (a string); api_key: must be a string' } });
    // Nothing was opened by the refusals; a good body opens the account, its package judged by the core.
    expect((await admin('GET', '/accounts/ann')).status).toBe(404);
    expect(await admin('POST', '/accounts', { username: 'ann', api_key: 'ann-key-123', package: { credits_per_hour: 500 } })).toMatchObject({ status: 201 });
    expect((await admin('POST', '/accounts', { username: 'bob', package: { credits_per_hour: -1 } })).status).toBe(400);
  });

  it('deny, charge, clock and the fault seed', async () => {
    expect(await admin('POST', '/accounts/ann/deny', { reason: 5 })).toMatchObject({ status: 400, json: { error: 'reason: must be a string' } });
    expect(await admin('POST', '/accounts/ann/charge', { cost: 1.5 })).toMatchObject({ status: 400, json: { error: 'cost: must be a whole number of credits, 0 or more' } });
    expect(await admin('POST', '/accounts/ann/charge', { cost: -3 })).toMatchObject({ status: 400, json: { error: 'cost: must be a whole number of credits, 0 or more' } });
    expect(await admin('POST', '/accounts/ann/charge', { cost: 10, product: 'firehose' })).toMatchObject({ status: 400, json: { error: 'product: must be "stream" (the stream product shares the general allowance)' } });
    expect(await admin('POST', '/accounts/ann/charge', { cost: 10, product: 'stream' })).toMatchObject({ status: 200, json: { limit: 500, remaining: 490, cost: 10 } });
    expect(await admin('POST', '/clock', { advance_ms: 1, to: 2 })).toMatchObject({ status: 400, json: { error: 'send {"advance_ms": N} or {"to": <unix ms>}, one of the two' } });
    expect(await admin('POST', '/clock', { advance_ms: 'soon' })).toMatchObject({ status: 400, json: { error: expect.stringContaining('advance_ms: must be a number of milliseconds') } });
    const before = (await admin('GET', '/clock')).json.now as number;
    expect(await admin('POST', '/clock', { advance_ms: 60_000 })).toMatchObject({ status: 200, json: { now: before + 60_000 } });
    expect(await admin('POST', '/faults/seed', { seed: 'x' })).toMatchObject({ status: 400, json: { error: 'seed: must be a whole number' } });
    expect((await admin('POST', '/accounts/ann/deny', {})).status).toBe(200);
  });
});
