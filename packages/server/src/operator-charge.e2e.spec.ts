import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StoreUnavailable } from '@sdp/core/kernel';
import { defaultSettings } from './settings.ts';
import { startServer, type RunningSdp } from './server.ts';

const T0 = Date.UTC(2026, 2, 2, 8, 5, 37);
const TOKEN = 'op-charge-token';

let sdp: RunningSdp;
beforeAll(async () => {
  sdp = await startServer({ ...defaultSettings(), port: 0, store: 'memory:', clock: 'manual', clockStartMs: T0, adminToken: TOKEN, accessLog: 'off' });
});
afterAll(() => sdp.close());

async function admin(method: string, path: string, body?: unknown, token = TOKEN): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await fetch(`${sdp.url}/_admin${path}`, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : {} };
}

const validate = (username: string, key: string) =>
  fetch(`${sdp.url}/v1.5/validate`, { method: 'POST', headers: { authorization: `${username}:${key}`, 'content-type': 'application/json' }, body: JSON.stringify({ csdl: 'fb.content contains "x"' }) });

const creditsSpent = async (username: string): Promise<{ endpoints: string[]; spent: number }> => {
  const events = await sdp.store.readStream(`credits:${username}`);
  const data = events.map((e) => e.data as { endpoint: string; lines: { cost: number }[] });
  return { endpoints: data.map((d) => d.endpoint), spent: data.reduce((n, d) => n + d.lines.reduce((m, l) => m + l.cost, 0), 0) };
};

describe("POST /_admin/accounts/{u}/charge: the operator's charge, judged by the engine's one door", () => {
  it('answers as it always has, and its write is the judge\'s: one charge of stream.charge to the general allowance', async () => {
    await admin('POST', '/accounts', { username: 'cara', package: { credits_per_hour: 100 } });
    const reset = Math.floor(Date.UTC(2026, 2, 2, 9, 5) / 1000);
    expect(await admin('POST', '/accounts/cara/charge', { cost: 60, product: 'stream' })).toEqual({ status: 200, json: { limit: 100, remaining: 40, reset, cost: 60 } });
    const short = await admin('POST', '/accounts/cara/charge', { cost: 41 });
    expect(short).toMatchObject({ status: 429, json: { limit: 100, remaining: 40, reset, cost: 41 } });
    expect(short.json.error).toMatch(/^rate limit exceeded: this call costs 41 credits and 40 remain/);
    expect(await creditsSpent('cara')).toEqual({ endpoints: ['stream.charge'], spent: 60 });
  });

  it('needs the admin token, and names an account that exists', async () => {
    expect((await admin('POST', '/accounts/cara/charge', { cost: 1 }, 'not-the-token')).status).toBe(401);
    expect((await admin('POST', '/accounts/nobody/charge', { cost: 1 })).status).toBe(404);
    expect((await admin('POST', '/accounts/%20x/charge', { cost: 1 })).status).toBe(404);
    expect((await creditsSpent('cara')).spent).toBe(60);
  });

  it("charges a denied account, as before, while the account's own calls are refused 403", async () => {
    const { json } = await admin('POST', '/accounts', { username: 'dora', package: { credits_per_hour: 100 } });
    await admin('POST', '/accounts/dora/deny', { reason: 'spam' });
    expect((await validate('dora', json.api_key as string)).status).toBe(403);
    expect(await admin('POST', '/accounts/dora/charge', { cost: 30 })).toMatchObject({ status: 200, json: { remaining: 70 } });
  });

  it('answers 503 with Retry-After while the store is away, and charges nothing', async () => {
    await admin('POST', '/accounts', { username: 'gale', package: { credits_per_hour: 100 } });
    const append = sdp.store.append;
    sdp.store.append = () => Promise.reject(new StoreUnavailable('the disk went away'));
    let res: Response;
    try {
      res = await fetch(`${sdp.url}/_admin/accounts/gale/charge`, { method: 'POST', headers: { authorization: `Bearer ${TOKEN}` }, body: JSON.stringify({ cost: 10 }) });
    } finally {
      sdp.store.append = append;
    }
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('5');
    expect(((await res.json()) as { error: string }).error).toMatch(/nothing was charged/);
    expect(await admin('POST', '/accounts/gale/charge', { cost: 10 })).toMatchObject({ status: 200, json: { remaining: 90 } });
  });

  it("takes the account's lane with its API calls: charges and calls sent at once never spend more than the allowance", async () => {
    const { json } = await admin('POST', '/accounts', { username: 'erin', package: { credits_per_hour: 100 } });
    const key = json.api_key as string;
    // 12 calls of 5 and 6 charges of 15: 150 asked of 100.
    const sent = [...Array.from({ length: 12 }, () => validate('erin', key).then((r) => ({ status: r.status, cost: 5 }))), ...Array.from({ length: 6 }, () => admin('POST', '/accounts/erin/charge', { cost: 15 }).then((r) => ({ status: r.status, cost: 15 })))];
    const answers = await Promise.all(sent);
    expect(answers.every((a) => a.status === 200 || a.status === 429)).toBe(true);
    const { spent } = await creditsSpent('erin');
    expect(spent).toBeLessThanOrEqual(100);
    expect(answers.filter((a) => a.status === 200).reduce((n, a) => n + a.cost, 0)).toBe(spent);
    expect(((await admin('GET', '/accounts/erin')).json.allowances as { general: { remaining: number } }).general.remaining).toBe(100 - spent);
  });
});
