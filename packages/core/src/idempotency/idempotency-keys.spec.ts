import { paramsOf } from '../handling/params-of.ts';
import { describe, expect, it } from 'vitest';
import { Engine } from '../pipeline/engine.ts';
import { BadRequest } from '../calls/errors.ts';
import { MemoryEventStore } from '../kernel/memory-store.ts';
import { seededIds, type Clock } from '../kernel/ports.ts';
import { IDEMPOTENCY_TTL_MS, IDEMPOTENT_BODY_MAX_CHARS, idempotencyStream } from './idempotency-keys.ts';

const creds = { username: 'alice', apiKey: 'k-0123456789' };

function setup() {
  const time = { now: Date.parse('2026-01-01T08:05:37Z') };
  const clock: Clock = { now: () => time.now };
  const store = new MemoryEventStore();
  let executed = 0;
  let gate: Promise<void> | undefined;
  const engine = new Engine({
    store,
    clock,
    ids: seededIds(3),
    handlers: {
      'core.compile': async (ctx) => {
        executed++;
        if (gate) await gate;
        const { csdl } = paramsOf(ctx, 'core.compile');
        if (csdl === 'bad') throw new BadRequest('bad filter');
        if (csdl === 'crash') throw new Error('the handler broke');
        if (csdl?.startsWith('big:')) return { body: { page: 'x'.repeat(Number(csdl.slice(4))) } };
        return { body: { hash: `h-${csdl}-${executed}` }, headers: { 'X-Served': String(executed) } };
      },
    },
  });
  return {
    engine,
    store,
    time,
    executed: () => executed,
    hold: () => {
      let open!: () => void;
      gate = new Promise((r) => (open = r));
      return () => {
        gate = undefined;
        open();
      };
    },
  };
}
const compile = (engine: Engine, csdl: string, key?: string) =>
  engine.call({ version: '1.5', endpoint: 'core.compile', credentials: creds, params: { csdl }, ...(key !== undefined ? { idempotencyKey: key } : {}) });

describe('idempotency keys', () => {
  it('a repeat with the same key and parameters replays status, body and headers, executed and charged once', async () => {
    const { engine, executed } = setup();
    await engine.openAccount({ username: 'alice', api_key: creds.apiKey });
    const first = await compile(engine, 'a', 'K1');
    const again = await compile(engine, 'a', 'K1');
    expect(executed()).toBe(1);
    expect(again.status).toBe(first.status);
    expect(again.body).toEqual(first.body);
    expect(again.rate).toEqual(first.rate);
    expect(again.headers).toEqual({ ...first.headers, 'Idempotent-Replayed': 'true' });
    expect(first.headers!['Idempotent-Replayed']).toBeUndefined();
    expect((await engine.accountView('alice')).allowances.general.remaining).toBe(10000 - 5);
    // Without a key, or with another key, the call runs again.
    await compile(engine, 'a');
    await compile(engine, 'a', 'K2');
    expect(executed()).toBe(3);
  });

  it('the same key with other parameters answers 422 and charges nothing', async () => {
    const { engine, executed } = setup();
    await engine.openAccount({ username: 'alice', api_key: creds.apiKey });
    await compile(engine, 'a', 'K');
    const other = await compile(engine, 'b', 'K');
    expect(other.status).toBe(422);
    expect(other.rate?.remaining).toBe(10000 - 5);
    // Charged nothing, and its headers say so.
    expect(other.rate?.cost).toBe(0);
    expect(executed()).toBe(1);
  });

  it('a repeat while the first is still running answers 409, and the first then answers as usual', async () => {
    const { engine, hold, executed } = setup();
    await engine.openAccount({ username: 'alice', api_key: creds.apiKey });
    const release = hold();
    const first = compile(engine, 'a', 'K');
    await new Promise((r) => setTimeout(r, 5));
    const repeat = await compile(engine, 'a', 'K');
    expect(repeat.status).toBe(409);
    release();
    expect((await first).status).toBe(200);
    expect(executed()).toBe(1);
    expect((await compile(engine, 'a', 'K')).headers!['Idempotent-Replayed']).toBe('true');
  });

  it('keys expire after 24 hours of clock time', async () => {
    const { engine, time, executed } = setup();
    await engine.openAccount({ username: 'alice', api_key: creds.apiKey });
    await compile(engine, 'a', 'K');
    time.now += IDEMPOTENCY_TTL_MS - 1;
    expect((await compile(engine, 'b', 'K')).status).toBe(422);
    time.now += 1;
    const fresh = await compile(engine, 'b', 'K');
    expect(fresh.status).toBe(200);
    expect(fresh.headers!['Idempotent-Replayed']).toBeUndefined();
    expect(executed()).toBe(2);
  });

  it('a client error is recorded and replayed (it was served and charged); a 5xx is not, so a retry runs', async () => {
    const { engine, executed } = setup();
    await engine.openAccount({ username: 'alice', api_key: creds.apiKey });
    expect((await compile(engine, 'bad', 'K4')).status).toBe(400);
    const replay = await compile(engine, 'bad', 'K4');
    expect(replay.status).toBe(400);
    expect(replay.headers!['Idempotent-Replayed']).toBe('true');
    expect((await compile(engine, 'crash', 'K5')).status).toBe(500);
    expect((await compile(engine, 'crash', 'K5')).status).toBe(500);
    expect(executed()).toBe(3);
  });

  it('an unexpected failure answers 500 with the rate-limit figures and charges nothing (docs/contract.md#judgement-order)', async () => {
    const { engine } = setup();
    await engine.openAccount({ username: 'alice', api_key: creds.apiKey });
    await compile(engine, 'a');
    const before = (await engine.accountView('alice')).allowances.general.remaining;
    const crashed = await compile(engine, 'crash');
    expect(crashed.status).toBe(500);
    expect(crashed.rate).toMatchObject({ limit: 10_000, remaining: before, cost: 0 });
    expect((await engine.accountView('alice')).allowances.general.remaining).toBe(before);
  });

  it('keys belong to the account: another account may use the same key', async () => {
    const { engine, executed } = setup();
    await engine.openAccount({ username: 'alice', api_key: creds.apiKey });
    await engine.openAccount({ username: 'bob', api_key: 'k-bob-0123456' });
    await compile(engine, 'a', 'K');
    const bob = await engine.call({ version: '1.5', endpoint: 'core.compile', credentials: { username: 'bob', apiKey: 'k-bob-0123456' }, params: { csdl: 'z' }, idempotencyKey: 'K' });
    expect(bob.status).toBe(200);
    expect(executed()).toBe(2);
  });

  it('the record is written in the same append as the charge, on the account key stream', async () => {
    const { engine, store } = setup();
    await engine.openAccount({ username: 'alice', api_key: creds.apiKey });
    const head = await store.head();
    await compile(engine, 'a', 'K');
    const written = await store.readAll(head);
    expect(written.map((e) => e.stream).sort()).toEqual(['credits:alice', idempotencyStream('alice')]);
    expect((await compile(engine, 'a', '')).status).toBe(400);
    expect((await compile(engine, 'a', 'x'.repeat(256))).status).toBe(400);
  });
});

describe('idempotency keys: what one account can make the server keep', () => {
  it('an answer over IDEMPOTENT_BODY_MAX_CHARS is recorded without its body; its retry answers 409 and does not run the call again', async () => {
    const { engine, store, executed } = setup();
    await engine.openAccount({ username: 'alice', api_key: creds.apiKey });
    const big = `big:${IDEMPOTENT_BODY_MAX_CHARS + 100}`;
    const first = await compile(engine, big, 'B1');
    expect(first.status).toBe(200);
    const again = await compile(engine, big, 'B1');
    expect(executed()).toBe(1);
    expect(again.status).toBe(409);
    expect((again.body as { error: string; replayed_status: number }).replayed_status).toBe(200);
    expect((again.body as { error: string }).error).toMatch(/over the 16384 kept for replays/);
    expect(again.headers!['Idempotent-Replayed']).toBe('true');
    const [recorded] = await store.readStream(idempotencyStream('alice'));
    expect(JSON.stringify(recorded!.data).length).toBeLessThan(2000);
    // At the bound the body is kept and replayed as it was.
    const exact = `big:${IDEMPOTENT_BODY_MAX_CHARS - '{"page":""}'.length}`;
    const kept = await compile(engine, exact, 'B2');
    expect((await compile(engine, exact, 'B2')).body).toEqual(kept.body);
  });

  it('a new key past the package\'s idempotency_keys is refused 403 before anything is charged or run; keys older than 24 hours free their place', async () => {
    const { engine, time, executed } = setup();
    await engine.openAccount({ username: 'alice', api_key: creds.apiKey, package: { idempotency_keys: 3 } });
    for (const k of ['K1', 'K2', 'K3']) expect((await compile(engine, k, k)).status).toBe(200);
    const before = (await engine.accountView('alice')).allowances.general.remaining;
    const refused = await compile(engine, 'K4', 'K4');
    expect(refused.status).toBe(403);
    expect((refused.body as { error: string }).error).toMatch(/allows 3 idempotency keys in 24 hours \(idempotency_keys\)/);
    expect(refused.rate?.remaining).toBe(before);
    expect((await engine.accountView('alice')).allowances.general.remaining).toBe(before);
    expect(executed()).toBe(3);
    // A held key still replays, and a call without a key still runs.
    expect((await compile(engine, 'K1', 'K1')).headers!['Idempotent-Replayed']).toBe('true');
    expect((await compile(engine, 'plain')).status).toBe(200);
    time.now += IDEMPOTENCY_TTL_MS;
    expect((await compile(engine, 'K4', 'K4')).status).toBe(200);
  });
});
