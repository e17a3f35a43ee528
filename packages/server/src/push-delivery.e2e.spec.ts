import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nodeOutbound } from '@sdp/http';
import { closedPort, startPushReceiver, type PushReceiver, type Received } from '../test/push-receiver.ts';
import { defaultSettings } from './settings.ts';
import { startServer, type RunningSdp } from './server.ts';

const T0 = Date.parse('2026-03-02T08:00:00Z');
const TOKEN = 'push-delivery-token';
const HOUR = 3_600_000;

let sdp: RunningSdp;
const receivers: PushReceiver[] = [];
// eslint-disable-next-line
type Json = any;

beforeAll(async () => {
  sdp = await startServer(
    { ...defaultSettings(), port: 0, store: 'memory:', clock: 'manual', clockStartMs: T0, adminToken: TOKEN, accessLog: 'off' },
    { pushOutbound: nodeOutbound({ timeoutMs: 300 }) },
  );
});
afterAll(async () => {
  for (const r of receivers) await r.close();
  await sdp.close();
});

async function receiver(port?: number): Promise<PushReceiver> {
  const r = await startPushReceiver({ clockNow: () => sdp.clock.now(), ...(port ? { port } : {}) });
  receivers.push(r);
  return r;
}

const admin = async (method: string, path: string, body?: unknown, server = sdp): Promise<Json> => {
  const r = await fetch(`${server.url}/_admin${path}`, {
    method,
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  return r.json();
};
const advance = (ms: number) => admin('POST', '/clock', { advance_ms: ms });

let accounts = 0;
/** An account with a recording of "coffee" fed by a started managed source. */
async function account(server = sdp) {
  const username = `push${++accounts}`;
  const { api_key: key } = await admin('POST', '/accounts', { username }, server);
  const call = async (path: string, params: Record<string, unknown> = {}, body?: string) => {
    const r = await fetch(`${server.url}/v1.5${path}`, {
      method: 'POST',
      headers: { authorization: `${username}:${key}`, 'content-type': body !== undefined ? 'application/json' : 'application/json' },
      body: body ?? JSON.stringify(params),
    });
    return { status: r.status, body: (r.status === 204 ? {} : await r.json()) as Json, remaining: Number(r.headers.get('x-ratelimit-remaining')) };
  };
  const { hash } = (await call('/insight/compile', { csdl: 'fb.content contains "coffee"' })).body;
  expect((await call('/insight/start', { hash, name: 'coffee', service: 'facebook' })).status).toBe(200);
  const source = (await call('/source/create', { source_type: 'twitter_gnip', name: 'feed', resources: [{ parameters: { mapping: 'gnip_1' } }] })).body;
  expect((await call('/source/start', { id: source.id })).status).toBe(200);
  let n = 0;
  const ingest = async (count: number, pad = 40): Promise<string[]> => {
    const ids: string[] = [];
    const lines = [];
    for (let k = 0; k < count; k++) {
      const id = `${username}-i${n++}`;
      ids.push(id);
      lines.push(JSON.stringify({ interaction: { id, content: `coffee ${'x'.repeat(pad)}` }, fb: { content: `coffee number ${id}` } }));
    }
    const r = await fetch(`${server.url}/v1.5/ingest/${source.id}`, { method: 'POST', headers: { authorization: `${username}:${key}` }, body: lines.join('\n') });
    expect(r.status).toBe(200);
    return ids;
  };
  const create = (output_params: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
    call('/push/create', { name: 'to my server', output_type: 'http', output_params, hash, ...extra });
  return { call, ingest, create, hash };
}

const idsIn = (r: Received): string[] => {
  const format = r.headers['x-datasift-format'];
  const items: Json[] =
    format === 'json_meta' ? JSON.parse(r.body).interactions : format === 'json_array' ? JSON.parse(r.body) : r.body === '' ? [] : r.body.split('\n').map((l) => JSON.parse(l));
  return items.map((i) => i.interaction.id);
};
const batches = (r: PushReceiver) => r.received.filter((x) => x.headers['x-sdp-ping'] === undefined);

describe('http push delivery against a real receiver on loopback', () => {
  it('delivers in json_meta by PUT with basic auth, batches within max_size, no more often than delivery_frequency', async () => {
    const rx = await receiver();
    const a = await account();
    const sent = await a.ingest(12);
    const created = await a.create({ url: rx.url, format: 'json_meta', method: 'put', delivery_frequency: 10, max_size: 700, auth: { type: 'basic', username: 'me', password: 'sécret' } });
    expect(created.status).toBe(200);
    expect(rx.received.filter((x) => x.headers['x-sdp-ping'] === 'true')).toHaveLength(1);
    for (let i = 0; i < 12; i++) await advance(5_000);
    const got = batches(rx);
    expect(got.length).toBeGreaterThan(2);
    expect(got.flatMap(idsIn)).toEqual(sent);
    for (const [i, r] of got.entries()) {
      expect(r.method).toBe('PUT');
      expect(r.headers.authorization).toBe(`Basic ${Buffer.from('me:sécret').toString('base64')}`);
      expect(Buffer.byteLength(r.body)).toBeLessThanOrEqual(700);
      expect(r.headers['x-sdp-delivery-id']).toMatch(/^[0-9a-f]{32}$/);
      const meta = JSON.parse(r.body);
      expect(meta).toMatchObject({ id: created.body.id, hash: a.hash, hash_type: 'stream', count: meta.interactions.length });
      if (i > 0) expect(r.at - got[i - 1]!.at).toBeGreaterThanOrEqual(10_000);
    }
    expect(new Set(got.map((r) => r.headers['x-sdp-delivery-id'])).size).toBe(got.length);
    const view = (await a.call('/push/get', { id: created.body.id })).body;
    expect(view).toMatchObject({ status: 'active', remaining_bytes: 0, interaction_count: 12, lost_data: false });
    expect(view.last_success).toBe(Math.floor(got.at(-1)!.at / 1000));
    const log = (await a.call('/push/log', { id: created.body.id })).body;
    expect(log.log_entries.filter((e: Json) => e.message === 'The delivery has completed')).toHaveLength(got.length);
  });

  it('sends json_array and gzipped json_new_line bodies, POST without auth by default', async () => {
    const rx = await receiver();
    const a = await account();
    const sent = await a.ingest(3);
    await a.create({ url: rx.url, format: 'json_array', delivery_frequency: 1 });
    await a.create({ url: `${rx.url}?nl`, format: 'json_new_line', compression: 'gzip', delivery_frequency: 1 });
    await advance(2_000);
    const arr = batches(rx).find((r) => r.headers['x-datasift-format'] === 'json_array')!;
    const nl = batches(rx).find((r) => r.headers['x-datasift-format'] === 'json_new_line')!;
    expect(arr.method).toBe('POST');
    expect(arr.headers.authorization).toBeUndefined();
    expect(idsIn(arr)).toEqual(sent);
    expect(nl.headers['content-encoding']).toBe('gzip');
    expect(idsIn(nl)).toEqual(sent);
  });

  it('logs a failing receiver, retries the same batch with backoff under the same delivery id, recovers, and never repeats an acknowledged batch', async () => {
    const rx = await receiver();
    const a = await account();
    const created = await a.create({ url: rx.url, format: 'json_array', delivery_frequency: 1 });
    rx.mode = 500;
    const sent = await a.ingest(4);
    await advance(1_000);
    await advance(60_000);
    const failed = batches(rx);
    expect(failed.length).toBeGreaterThanOrEqual(3);
    expect(new Set(failed.map((r) => r.headers['x-sdp-delivery-id'])).size).toBe(1);
    expect(failed.map(idsIn)).toEqual(failed.map(() => sent));
    // Backoff: each wait at least as long as the one before.
    const gaps = failed.slice(1).map((r, i) => r.at - failed[i]!.at);
    for (let i = 1; i < gaps.length; i++) expect(gaps[i]).toBeGreaterThanOrEqual(gaps[i - 1]!);
    const log = (await a.call('/push/log', { id: created.body.id })).body.log_entries;
    expect(log.filter((e: Json) => !e.success && e.message === 'The endpoint returned a 500 internal server error').length).toBe(failed.length);

    rx.mode = 'hang';
    await advance(10 * 60_000);
    const timedOut = (await a.call('/push/log', { id: created.body.id })).body.log_entries;
    expect(timedOut.some((e: Json) => /no answer within/.test(e.message))).toBe(true);

    rx.mode = 200;
    await advance(10 * 60_000);
    const all = batches(rx);
    const acked = all.at(-1)!;
    expect(acked.headers['x-sdp-delivery-id']).toBe(failed[0]!.headers['x-sdp-delivery-id']);
    await advance(10 * 60_000);
    expect(batches(rx).filter((r) => r.headers['x-sdp-delivery-id'] === acked.headers['x-sdp-delivery-id']).at(-1)).toBe(acked);
    const after = (await a.call('/push/log', { id: created.body.id })).body.log_entries;
    expect(after.filter((e: Json) => e.message === 'Successfully delivered after delivery failure(s)')).toHaveLength(1);
    expect(after[0]).toMatchObject({ success: true, message: 'Successfully delivered after delivery failure(s)' });
    expect((await a.call('/push/get', { id: created.body.id })).body).toMatchObject({ status: 'active', remaining_bytes: 0, interaction_count: 4 });
  });

  it('fails a subscription whose receiver stays down for an hour of clock time, and reports its data lost', async () => {
    const rx = await receiver();
    const a = await account();
    const created = await a.create({ url: rx.url, format: 'json_array', delivery_frequency: 1 });
    await rx.close();
    await a.ingest(2);
    await advance(1_000);
    const start = sdp.clock.now();
    await advance(HOUR - 5_000);
    expect((await a.call('/push/get', { id: created.body.id })).body.status).toBe('active');
    await advance(10_000);
    const view = (await a.call('/push/get', { id: created.body.id })).body;
    expect(view).toMatchObject({ status: 'failed', lost_data: true });
    expect(view.remaining_bytes).toBeGreaterThan(0);
    expect(view.last_request).toBeGreaterThanOrEqual(Math.floor((start + HOUR - 5_000) / 1000));
    const log = (await a.call('/push/log', { id: created.body.id })).body.log_entries;
    expect(log.filter((e: Json) => e.message === 'Could not reach the endpoint: connection refused').length).toBeGreaterThan(5);
    expect(log.some((e: Json) => /^Stopped due to too many failed delivery attempts; 2 undelivered/.test(e.message))).toBe(true);
    expect(log[0]).toMatchObject({ success: false, message: 'The status has changed to: failed' });
  });

  it('buffers while paused and delivers what waits on resume', async () => {
    const rx = await receiver();
    const a = await account();
    const created = await a.create({ url: rx.url, format: 'json_array', delivery_frequency: 1 });
    expect((await a.call('/push/pause', { id: created.body.id })).body.status).toBe('paused');
    const sent = await a.ingest(3);
    await advance(60_000);
    expect(batches(rx)).toHaveLength(0);
    const paused = (await a.call('/push/get', { id: created.body.id })).body;
    expect(paused.remaining_bytes).toBeGreaterThan(0);
    await a.call('/push/resume', { id: created.body.id });
    await advance(1_000);
    expect(batches(rx).flatMap(idsIn)).toEqual(sent);
  });

  it('fails a subscription left paused for an hour, with what waited reported lost', async () => {
    const rx = await receiver();
    const a = await account();
    const created = await a.create({ url: rx.url, format: 'json_array', delivery_frequency: 1 });
    await a.call('/push/pause', { id: created.body.id });
    await a.ingest(2);
    await advance(HOUR - 1_000);
    expect((await a.call('/push/get', { id: created.body.id })).body.status).toBe('paused');
    await advance(2_000);
    expect((await a.call('/push/get', { id: created.body.id })).body).toMatchObject({ status: 'failed', lost_data: true });
    const log = (await a.call('/push/log', { id: created.body.id })).body.log_entries;
    expect(log.some((e: Json) => e.message === 'The delivery was paused for too long; 2 undelivered interaction(s) lost')).toBe(true);
    expect(batches(rx)).toHaveLength(0);
  });
});

describe('the ping and the outbound host list', () => {
  it('validate and create answer 400 (still charged) when the URL cannot be reached, 200 against a live receiver', async () => {
    const a = await account();
    const down = `http://127.0.0.1:${await closedPort()}/receive`;
    const v = await a.call('/push/validate', { output_type: 'http', output_params: { url: down } });
    expect(v.status).toBe(400);
    expect(v.body.error).toMatch(/^could not access the destination URL http:\/\/127\.0\.0\.1:\d+\/receive: Could not reach the endpoint: connection refused/);
    const c = await a.create({ url: down });
    expect(c.status).toBe(400);
    expect(c.body.error).toMatch(/could not access the destination URL/);
    expect(c.remaining).toBe(v.remaining - 5);
    const rx = await receiver();
    expect((await a.call('/push/validate', { output_type: 'http', output_params: { url: rx.url } })).body).toEqual({ success: true, message: 'Validated successfully' });
    expect((await a.create({ url: rx.url })).status).toBe(200);
    rx.mode = 404;
    expect((await a.call('/push/validate', { output_type: 'http', output_params: { url: rx.url } })).body.error).toMatch(/returned a 404 not found/);
  });

  it('refuses a host outside --push-allowed-hosts with a clear 400, without any request', async () => {
    const a = await account();
    for (const url of ['http://example.com/hook', 'http://10.0.0.1/hook', 'https://169.254.169.254/latest']) {
      const r = await a.call('/push/validate', { output_type: 'http', output_params: { url } });
      expect(r.status).toBe(400);
      expect(r.body.error).toMatch(/this server does not deliver to .*; it may deliver only to 127\.0\.0\.1, localhost, ::1 \(the operator's --push-allowed-hosts\)/);
    }
    expect((await a.call('/push/validate', { output_type: 'http', output_params: { url: 'ftp://127.0.0.1/x' } })).status).toBe(400);
    const rx = await receiver();
    const ok = await a.create({ url: rx.url });
    const moved = await a.call('/push/update', { id: ok.body.id, output_params: { url: 'http://example.com/' } });
    expect(moved.status).toBe(400);
  });
});

describe('on the system clock', () => {
  it('delivers in the background, and a receiver that hangs holds neither the account nor the server', async () => {
    const live = await startServer({ ...defaultSettings(), port: 0, store: 'memory:', adminToken: TOKEN, accessLog: 'off' }, { pushOutbound: nodeOutbound({ timeoutMs: 8_000 }) });
    try {
      const rx = await receiver();
      const a = await account(live);
      const created = await a.create({ url: rx.url, format: 'json_array', delivery_frequency: 0 });
      const sent = await a.ingest(2);
      const deadline = Date.now() + 10_000;
      while (batches(rx).length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      expect(batches(rx).flatMap(idsIn)).toEqual(sent);

      rx.mode = 'hang';
      await a.ingest(1);
      while (batches(rx).length === 1 && Date.now() < deadline + 10_000) await new Promise((r) => setTimeout(r, 50));
      expect(batches(rx)).toHaveLength(2);
      // The batch is on its way and unanswered: the same account's calls answer at once.
      const started = Date.now();
      const view = await a.call('/push/get', { id: created.body.id });
      expect(view.body).toMatchObject({ status: 'active', interaction_count: 2 });
      expect((await a.call('/push/pause', { id: created.body.id })).status).toBe(200);
      // Well inside the receiver's 8 s: nothing waited for the delivery on its way.
      expect(Date.now() - started).toBeLessThan(4_000);
      await rx.close();
    } finally {
      await live.close();
    }
  });
});

describe('a stopped http subscription delivers what it held up to its end, or says it lost it', () => {
  it('under a long delivery_frequency: the batch due after the finishing minute still goes out, then it is finished', async () => {
    const rx = await receiver();
    const a = await account();
    const created = await a.create({ url: rx.url, format: 'json_array', delivery_frequency: 120 });
    const first = await a.ingest(3);
    await advance(1_000);
    expect(batches(rx).flatMap(idsIn)).toEqual(first);
    const second = await a.ingest(4);
    expect((await a.call('/push/stop', { id: created.body.id })).body.status).toBe('finishing');
    // A minute after its end the second batch is not yet due (120 s after the first): still finishing.
    await advance(70_000);
    expect((await a.call('/push/get', { id: created.body.id })).body).toMatchObject({ status: 'finishing', lost_data: false });
    await advance(60_000);
    expect(batches(rx).flatMap(idsIn)).toEqual([...first, ...second]);
    await advance(1_000);
    const view = (await a.call('/push/get', { id: created.body.id, include_finished: 1 })).body;
    expect(view).toMatchObject({ status: 'finished', lost_data: false, remaining_bytes: 0, interaction_count: 7 });
  });

  it('with a failing receiver: retries past the finishing minute deliver once it answers; one down for the hour fails with lost_data and a log entry', async () => {
    const rx = await receiver();
    const a = await account();
    const created = await a.create({ url: rx.url, format: 'json_array', delivery_frequency: 1 });
    rx.mode = 500;
    const sent = await a.ingest(3);
    await advance(1_000);
    expect((await a.call('/push/stop', { id: created.body.id })).body.status).toBe('finishing');
    await advance(3 * 60_000);
    expect((await a.call('/push/get', { id: created.body.id })).body).toMatchObject({ status: 'finishing', lost_data: false });
    rx.mode = 200;
    await advance(10 * 60_000);
    expect(batches(rx).map(idsIn).at(-1)).toEqual(sent);
    expect((await a.call('/push/get', { id: created.body.id, include_finished: 1 })).body).toMatchObject({ status: 'finished', lost_data: false, interaction_count: 3 });

    const down = await receiver();
    const b = await account();
    const lost = await b.create({ url: down.url, format: 'json_array', delivery_frequency: 1 });
    await down.close();
    await b.ingest(2);
    await advance(1_000);
    await b.call('/push/stop', { id: lost.body.id });
    await advance(HOUR + 60_000);
    const view = (await b.call('/push/get', { id: lost.body.id, include_finished: 1 })).body;
    expect(view).toMatchObject({ status: 'failed', lost_data: true });
    const log = (await b.call('/push/log', { id: lost.body.id })).body.log_entries;
    expect(log.some((e: Json) => /undelivered interaction\(s\) lost/.test(e.message))).toBe(true);
  });
});
