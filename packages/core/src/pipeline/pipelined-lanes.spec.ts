import { describe, expect, it } from 'vitest';
import { fc, test } from '@fast-check/vitest';
import { Engine } from './engine.ts';
import type { EventStore } from '../kernel/event-store.ts';
import type { AppendResult, StoredEvent, StreamAppend } from '../kernel/events.ts';
import type { StoreCapabilities } from '../kernel/store-capabilities.ts';
import { MemoryEventStore } from '../kernel/memory-store.ts';
import { seededIds } from '../kernel/ports.ts';
import { StreamCalls } from '../streams/stream-calls.ts';
import { streamHandlers } from '../streams/stream-handlers.ts';
import { WRITE_POLICIES, type WritePolicy } from '../kernel/write-policy.ts';

const T0 = Date.parse('2026-05-01T10:00:00Z');

/**
 * A store whose writes become durable a turn of the event loop later, in groups and in order (as SQLite's
 * group commit and PostgreSQL's grouped appends do), and whose writes numbered in `failing` fail as a
 * disk or connection would: nothing of them is written.
 */
class SlowStore implements EventStore {
  readonly inner = new MemoryEventStore();
  /** As an embedder's own shared store may: it states no check of the last event id a write expects. */
  readonly capabilities: StoreCapabilities = { kind: 'slow', reach: 'network', checksLastEventId: false, freshReads: false };
  private queue: { batch: StreamAppend[]; resolve: (r: AppendResult | Promise<AppendResult>) => void; reject: (e: unknown) => void }[] = [];
  private scheduled = false;
  appends = 0;
  groups = 0;
  reads = 0;
  constructor(private readonly failing: ReadonlySet<number> = new Set()) {}

  append(batch: StreamAppend[]): Promise<AppendResult> {
    return new Promise((resolve, reject) => {
      this.queue.push({ batch, resolve, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }
  private flush(): void {
    this.scheduled = false;
    this.groups++;
    for (const r of this.queue.splice(0)) {
      const n = ++this.appends;
      if (this.failing.has(n)) {
        r.reject(new Error(`write ${n} failed`));
        continue;
      }
      // The memory store checks and writes before its promise returns: these land in order.
      r.resolve(this.inner.append(r.batch));
    }
  }
  watchCommits(listener: Parameters<EventStore['watchCommits']>[0]): () => void {
    return this.inner.watchCommits(listener);
  }
  readStream(stream: string, after?: number): Promise<StoredEvent[]> {
    this.reads++;
    return this.inner.readStream(stream, after);
  }
  readAll(after?: number, limit?: number): Promise<StoredEvent[]> {
    return this.inner.readAll(after, limit);
  }
  readTypes(types: readonly string[], after?: number, limit?: number): Promise<StoredEvent[]> {
    return this.inner.readTypes(types, after, limit);
  }
  head(): Promise<number> {
    return this.inner.head();
  }
  clear(): Promise<void> {
    return this.inner.clear();
  }
  close(): Promise<void> {
    return this.inner.close();
  }
}

const VALIDATE_COST = 5;

async function engineOn(store: EventStore, limit: number, writePolicy: WritePolicy = WRITE_POLICIES['sole-writer']) {
  const engine = new Engine({ store, clock: { now: () => T0 }, ids: seededIds(7), handlers: { 'core.validate': () => ({ body: {} }), 'stream.charge': streamHandlers['stream.charge']! }, writePolicy });
  await engine.openAccount({ username: 'u', api_key: 'key-of-u', package: { credits_per_hour: limit } });
  return engine;
}

const validate = (engine: Engine) => engine.call({ version: '1.5', endpoint: 'core.validate', credentials: { username: 'u', apiKey: 'key-of-u' } });

async function chargedInStore(store: SlowStore): Promise<number> {
  const events = await store.inner.readStream('credits:u');
  return events.filter((e) => e.type === 'CreditsCharged').length;
}

describe('pipelined lanes: one account decides its next call before the last one is durable', () => {
  it("groups one account's writes: many calls at once share few durable writes", async () => {
    const store = new SlowStore();
    const engine = await engineOn(store, 1e9);
    const before = store.groups;
    const answers = await Promise.all(Array.from({ length: 50 }, () => validate(engine)));
    expect(answers.every((a) => a.status === 200)).toBe(true);
    // Without pipelining each call waits for the one before it to be durable: 50 groups.
    expect(store.groups - before).toBeLessThan(5);
    expect(answers.map((a) => a.rate!.remaining)).toEqual(answers.map((_, i) => 1e9 - VALIDATE_COST * (i + 1)));
  });

  it('over a store other processes may write, an account decides its next call only once the last write is settled', async () => {
    const store = new SlowStore();
    const engine = await engineOn(store, 1e9, WRITE_POLICIES['shared-serial']);
    const before = store.groups;
    const answers = await Promise.all(Array.from({ length: 20 }, () => validate(engine)));
    expect(answers.every((a) => a.status === 200)).toBe(true);
    // No call decided on a write that was not yet durable: one durable write after another.
    expect(store.groups - before).toBe(20);
    expect(answers.map((a) => a.rate!.remaining)).toEqual(answers.map((_, i) => 1e9 - VALIDATE_COST * (i + 1)));
  });

  it("a sole writer decides on the states it has cached, reading nothing per call; another writer's change is still met, by the read guards", async () => {
    const store = new SlowStore();
    const engine = await engineOn(store, 1e9);
    expect((await validate(engine)).status).toBe(200);
    const reads = store.reads;
    const answers = await Promise.all(Array.from({ length: 20 }, () => validate(engine)));
    expect(answers.every((a) => a.status === 200)).toBe(true);
    expect(store.reads - reads).toBe(0);
    // Another engine on the store (an operator's tool beside the server) denies the account.
    const other = new Engine({ store, clock: { now: () => T0 }, ids: seededIds(8), writePolicy: WRITE_POLICIES['shared-serial'] });
    await other.deny('u', 'abuse');
    expect((await validate(engine)).status).toBe(403);
  });

  it('over a store other processes may write, every load reads the stream’s tail', async () => {
    const store = new SlowStore();
    const engine = await engineOn(store, 1e9, WRITE_POLICIES['shared-serial']);
    expect((await validate(engine)).status).toBe(200);
    const reads = store.reads;
    expect((await validate(engine)).status).toBe(200);
    expect(store.reads - reads).toBeGreaterThanOrEqual(2);
  });

  test.prop([fc.integer({ min: 1, max: 40 }), fc.integer({ min: 0, max: 60 }), fc.uniqueArray(fc.integer({ min: 2, max: 80 }), { maxLength: 6 })])(
    'every 200 is durable and nothing else is charged, whichever writes fail (each failure answered, never reported done)',
    async (calls, allowanceCalls, failing) => {
      const store = new SlowStore(new Set(failing));
      const engine = await engineOn(store, allowanceCalls * VALIDATE_COST);
      const answers = await Promise.all(Array.from({ length: calls }, () => validate(engine)));
      const ok = answers.filter((a) => a.status === 200).length;
      expect(await chargedInStore(store)).toBe(ok);
      expect(ok).toBeLessThanOrEqual(allowanceCalls);
      for (const a of answers) expect([200, 429, 500]).toContain(a.status);
      // A failed write is answered as an error, and only a failed write is: the rest were decided again.
      const failures = answers.filter((a) => a.status === 500).length;
      expect(failures).toBeLessThanOrEqual(failing.length);
      if (failures === 0) expect(ok).toBe(Math.min(calls, allowanceCalls));
      // The figures each 200 reports count exactly the durable charges before it.
      const remaining = answers.filter((a) => a.status === 200).map((a) => a.rate!.remaining).sort((x, y) => y - x);
      expect(remaining).toEqual(remaining.map((_, i) => allowanceCalls * VALIDATE_COST - VALIDATE_COST * (i + 1)));
    },
  );

  it('a call decided on a pending charge that then fails is decided again, not answered on the phantom state', async () => {
    // The account's first write fails; the nine calls behind it had decided on its pending charge.
    const store = new SlowStore(new Set([2]));
    const engine = await engineOn(store, 10 * VALIDATE_COST);
    const answers = await Promise.all(Array.from({ length: 10 }, () => validate(engine)));
    expect(answers.filter((a) => a.status === 500)).toHaveLength(1);
    expect(answers.filter((a) => a.status === 200)).toHaveLength(9);
    expect(await chargedInStore(store)).toBe(9);
    const after = await validate(engine);
    expect(after.status).toBe(200);
    expect(after.rate!.remaining).toBe(0);
  });

  it("a caller with a wrong key never queues in the account's lane (the lane is entered after authentication)", async () => {
    let open!: () => void;
    const gate = new Promise<void>((r) => (open = r));
    const engine = new Engine({ store: new SlowStore(), writePolicy: WRITE_POLICIES['sole-writer'], clock: { now: () => T0 }, ids: seededIds(9), handlers: { 'core.validate': async () => (await gate, { body: {} }) } });
    await engine.openAccount({ username: 'u', api_key: 'key-of-u', package: { credits_per_hour: 1000 } });
    const held = validate(engine); // decides until the gate opens: holds the lane
    await new Promise((r) => setImmediate(r));
    const impostor = engine.call({ version: '1.5', endpoint: 'core.validate', credentials: { username: 'u', apiKey: 'not-the-key' } });
    const waited = new Promise<'still waiting'>((r) => setTimeout(() => r('still waiting'), 1000));
    expect(await Promise.race([impostor.then((a) => a.status), waited])).toBe(401);
    open();
    expect((await held).status).toBe(200);
  });
});

/**
 * A view of a shared store whose appends wait at a gate until `open`, then reach it in the order asked:
 * this engine's writes are held while another writer's land.
 */
function gated(store: EventStore): { store: EventStore; open: () => void } {
  let open!: () => void;
  const gate = new Promise<void>((r) => (open = r));
  let queue: Promise<unknown> = gate;
  const view = new Proxy(store, {
    get(target, name, receiver) {
      if (name === 'append') {
        return (batch: StreamAppend[]) => {
          const written = queue.then(() => target.append(batch));
          queue = written.catch(() => undefined);
          return written;
        };
      }
      const value = Reflect.get(target, name, receiver) as unknown;
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
  return { store: view, open };
}

describe('pipelined lanes over a store other writers share (the store checks the last event id)', () => {
  it("a call decided on a pending charge that lost to another writer's write of the same version is decided again, and the allowance holds", async () => {
    // 29 credits: A's two calls (5 + 5) fit on A's view; B's 25 and either of A's do not.
    const shared = new MemoryEventStore();
    const { store: slowA, open } = gated(shared);
    const b = await engineOn(shared, 29, WRITE_POLICIES.shared);
    const a = new Engine({ store: slowA, clock: { now: () => T0 }, ids: seededIds(8), handlers: { 'core.validate': () => ({ body: {} }) }, writePolicy: WRITE_POLICIES.shared });
    // A decides two calls of the account; both writes wait at the gate, the second decided on the first's
    // pending charge (pipelined, since the store checks last event ids).
    const first = validate(a);
    const second = validate(a);
    await new Promise((r) => setImmediate(r));
    // B charges 25 meanwhile: its write takes the version A's first write expected.
    expect((await new StreamCalls(b).charge('u', 25)).status).toBe(200);
    open();
    const answers = await Promise.all([first, second]);
    const log = await shared.readStream('credits:u');
    const used = log.reduce((n, e) => n + (e.data as { lines: { cost: number }[] }).lines.reduce((m, l) => m + l.cost, 0), 0);
    // Without the check A's second write (version 1 expected, B's event there) would land: 30 of 29.
    expect(used).toBeLessThanOrEqual(29);
    expect(used).toBe(25);
    // Both decided again on the store's state (B's 25 of 29 spent): neither fits.
    expect(answers.map((x) => x.status)).toEqual([429, 429]);
    expect(answers.map((x) => x.rate!.remaining)).toEqual([4, 4]);
  });
});
