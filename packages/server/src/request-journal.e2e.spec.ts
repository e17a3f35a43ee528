import { afterAll, describe, expect, it } from 'vitest';
import { defaultSettings } from './settings.ts';
import { startServer, type RunningSdp } from './server.ts';

let sdp: RunningSdp | undefined;
afterAll(async () => {
  await sdp?.close();
});

describe('GET /_admin/requests over a socket', () => {
  it('lists the calls the API answered with their account and charge, for the operator only', async () => {
    sdp = await startServer({ ...defaultSettings(), port: 0, store: 'memory:', clock: 'manual', clockStartMs: Date.parse('2026-03-02T08:00:00Z'), adminToken: 'journal-token', accessLog: 'off' });
    const { username, apiKey } = sdp.demo!;
    const call = await fetch(`${sdp.url}/v1.5/validate`, { method: 'POST', headers: { authorization: `${username}:${apiKey}`, 'content-type': 'application/json' }, body: JSON.stringify({ csdl: 'fb.content contains "tea"' }) });
    expect(call.status).toBe(200);
    expect((await fetch(`${sdp.url}/_admin/requests`)).status).toBe(401);
    const listed = await fetch(`${sdp.url}/_admin/requests?limit=5`, { headers: { authorization: 'Bearer journal-token' } });
    expect(listed.status).toBe(200);
    const body = (await listed.json()) as { requests: { method: string; path: string; account: string | null; status: number; cost: number | null; remaining: number | null }[] };
    const validate = body.requests.find((r) => r.path === '/v1.5/validate');
    expect(validate).toMatchObject({ method: 'POST', account: username, status: 200, cost: 5, remaining: Number(call.headers.get('x-ratelimit-remaining')) });
    // The refused read of the journal is in it too, as any request is.
    expect(body.requests.some((r) => r.path === '/_admin/requests' && r.status === 401)).toBe(true);
  });

  it('finds a client\'s calls by username, path, status and since, each with its version and charge', async () => {
    const { username, apiKey } = sdp!.demo!;
    const admin = { authorization: 'Bearer journal-token' };
    const since = new Date().toISOString();
    const usage = await fetch(`${sdp!.url}/v1.5/usage`, { headers: { authorization: `${username}:${apiKey}` } });
    expect(usage.status).toBe(200);
    expect((await fetch(`${sdp!.url}/v1.5/usage`, { headers: { authorization: `${username}:wrong-key-000000` } })).status).toBe(401);
    type Listed = { requests: { method: string; path: string; version: string | null; account: string | null; status: number; cost: number | null; remaining: number | null; ms: number; time: string }[] };
    const find = async (query: string) => ((await (await fetch(`${sdp!.url}/_admin/requests?${query}`, { headers: admin })).json()) as Listed).requests;
    const mine = await find(`username=${username}&path=/v1.5/usage&status=200&since=${encodeURIComponent(since)}`);
    expect(mine).toHaveLength(1);
    expect(mine[0]).toMatchObject({ method: 'GET', path: '/v1.5/usage', version: '1.5', account: username, status: 200, cost: Number(usage.headers.get('x-ratelimit-cost')), remaining: Number(usage.headers.get('x-ratelimit-remaining')) });
    expect(mine[0]!.ms).toBeGreaterThanOrEqual(0);
    expect((await find(`status=4xx&path=/v1.5/usage&since=${Date.parse(since)}`)).map((r) => r.status)).toEqual([401]);
    expect(await find(`since=${Date.now() + 60_000}`)).toEqual([]);
    expect((await fetch(`${sdp!.url}/_admin/requests?status=abc`, { headers: admin })).status).toBe(400);
  });
});
