import { describe, expect, it } from 'vitest';
import { fc, test } from '@fast-check/vitest';
import { CONFLICT_RETRY_AFTER_S, Engine, retryPauseMs } from './engine.ts';
import { MemoryEventStore } from '../kernel/memory-store.ts';
import { seededIds } from '../kernel/ports.ts';
import { VersionConflict } from '../kernel/version-conflict.ts';
import type { EventStore } from '../kernel/event-store.ts';

const T = Date.parse('2026-02-01T10:00:00Z');
const alice = { username: 'alice', apiKey: 'alice-key-000000000001' };

/** A store in front of `inner` whose next `conflicts` appends lose to another writer. */
function contested(inner: MemoryEventStore): EventStore & { conflicts: number } {
  const store = Object.create(inner) as EventStore & { conflicts: number };
  store.conflicts = 0;
  store.append = (batch) => {
    if (store.conflicts > 0) {
      store.conflicts--;
      return Promise.reject(new VersionConflict(batch[0]!.stream, batch[0]!.expectedVersion, batch[0]!.expectedVersion + 1));
    }
    return inner.append(batch);
  };
  return store;
}

function setup(maxAttempts: number) {
  const inner = new MemoryEventStore();
  const store = contested(inner);
  const pauses: number[] = [];
  const engine = new Engine({
    store,
    clock: { now: () => T },
    ids: seededIds(3),
    settings: { maxAttempts },
    handlers: { 'core.validate': () => ({ body: {} }) },
    wait: async (ms) => void pauses.push(ms),
  });
  return { engine, store, inner, pauses };
}

describe('retries when another writer moved what a call read', () => {
  it('tries again after a pause through the wait port, and answers once the store takes the write', async () => {
    const { engine, store, pauses } = setup(5);
    await engine.openAccount({ username: alice.username, api_key: alice.apiKey });
    store.conflicts = 2;
    const answer = await engine.call({ version: '1.5', endpoint: 'core.validate', credentials: alice });
    expect(answer.status).toBe(200);
    expect(answer.rate?.remaining).toBe(9995);
    expect(pauses).toHaveLength(2);
  });

  it('gives up after the bounded attempts with a 503 and Retry-After, having charged nothing', async () => {
    const { engine, store, inner, pauses } = setup(4);
    await engine.openAccount({ username: alice.username, api_key: alice.apiKey });
    const head = await inner.head();
    store.conflicts = 1000;
    const answer = await engine.call({ version: '1.5', endpoint: 'core.validate', credentials: alice });
    expect(answer.status).toBe(503);
    expect(answer.headers).toEqual({ 'Retry-After': String(CONFLICT_RETRY_AFTER_S) });
    expect(store.conflicts).toBe(1000 - 4);
    // A pause between attempts, none after the last; each under its growing bound.
    expect(pauses).toHaveLength(3);
    pauses.forEach((ms, i) => expect(ms).toBeLessThan(2 ** i));
    expect(await inner.head()).toBe(head);
  });

  it('operator commands retry the same way, and give the conflict up after the bounded attempts', async () => {
    const { engine, store, pauses } = setup(3);
    await engine.openAccount({ username: alice.username, api_key: alice.apiKey });
    store.conflicts = 2;
    expect((await engine.deny(alice.username, 'abuse')).denied).toBe(true);
    store.conflicts = 3;
    await expect(engine.allow(alice.username)).rejects.toThrow(VersionConflict);
    expect(pauses).toHaveLength(4);
  });

  test.prop([fc.integer({ min: 1, max: 40 }), fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true })])(
    'a pause is never negative and stays under a bound that doubles from 1 ms to at most 64 ms',
    (attempt, unit) => {
      const ms = retryPauseMs(attempt, unit);
      expect(ms).toBeGreaterThanOrEqual(0);
      expect(ms).toBeLessThan(Math.min(64, 2 ** (attempt - 1)));
    },
  );

  it('jitter: pauses drawn from the ids port differ between writers that collided together', async () => {
    const bounds = Array.from({ length: 20 }, (_, i) => retryPauseMs(7, parseInt(seededIds(i + 1).hex(8), 16) / 2 ** 32));
    expect(new Set(bounds).size).toBeGreaterThan(15);
  });
});
