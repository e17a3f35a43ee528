import { describe, expect, it } from 'vitest';
import type { Decider, DomainEvent } from './decider.ts';
import type { Snapshot } from './event-store.ts';
import { SNAPSHOT_EVERY, StateCache, type UnitEntry } from './state-cache.ts';

const counter = { name: 'counter' } as unknown as Decider<unknown, unknown, DomainEvent>;
const event = (id: string) => ({ id, type: 'Counted', data: {}, time: 0 });
const wrote = (key: string, baseVersion: number, ids: string[], state: unknown = ids.length): UnitEntry => ({ key, decider: counter, stream: key, baseVersion, state, events: ids.map(event), pending: false });
const read = (key: string, baseVersion: number, pending = false): UnitEntry => ({ key, decider: counter, stream: key, baseVersion, state: 'read', events: [], pending });

describe('StateCache: the pending protocol the attempt loop drives', () => {
  it('pending: a written state is cached at its new version, pending, naming its last event; durable: no longer pending', () => {
    const cache = new StateCache(10, undefined);
    const entries = [wrote('a', 3, ['e4', 'e5']), read('b', 7)];
    cache.pending(entries);
    expect(cache.current('a')).toEqual({ state: 2, version: 5, pending: true, lastId: 'e5' });
    expect(cache.get('b')).toBeUndefined();
    expect(cache.durable(entries)).toBeUndefined();
    expect(cache.current('a')).toMatchObject({ version: 5, pending: false });
  });

  it('durable leaves a newer pending state of the same stream pending', () => {
    const cache = new StateCache(10, undefined);
    const first = [wrote('a', 0, ['e1'])];
    const second = [wrote('a', 1, ['e2'])];
    cache.pending(first);
    cache.pending(second);
    cache.durable(first);
    expect(cache.current('a')).toMatchObject({ version: 2, pending: true, lastId: 'e2' });
  });

  it('failed: what the write cached and the pending states it read are dropped; what it only read is behind, so the next load catches up', () => {
    const cache = new StateCache(10, undefined);
    cache.remember('b', { state: 'b', version: 4 });
    cache.remember('c', { state: 'c', version: 2, pending: true, lastId: 'x' });
    const entries = [wrote('a', 0, ['e1']), read('b', 4), read('c', 2, true)];
    cache.pending(entries);
    cache.failed(entries);
    expect(cache.get('a')).toBeUndefined();
    expect(cache.get('c')).toBeUndefined();
    expect(cache.get('b')).toBeDefined();
    expect(cache.current('b')).toBeUndefined();
    cache.caughtUp('b');
    expect(cache.current('b')).toEqual({ state: 'b', version: 4 });
  });

  it('durable writes a snapshot when a write crosses a multiple of SNAPSHOT_EVERY, and only then', async () => {
    const written: Snapshot[] = [];
    const cache = new StateCache(10, async (s) => void written.push(s));
    expect(cache.durable([wrote('a', 10, ['e11'])])).toBeUndefined();
    await cache.durable([wrote('a', SNAPSHOT_EVERY - 1, ['x', 'y'], 'folded')]);
    expect(written).toEqual([{ stream: 'a', kind: 'counter', version: SNAPSHOT_EVERY + 1, state: 'folded' }]);
  });

  it('holds at most its capacity, the least recently set going first; an older state never replaces a newer', () => {
    const cache = new StateCache(2, undefined);
    cache.remember('a', { state: 1, version: 1 });
    cache.remember('b', { state: 1, version: 1 });
    cache.remember('a', { state: 2, version: 2 });
    cache.remember('c', { state: 1, version: 1 });
    expect(cache.get('b')).toBeUndefined();
    cache.remember('a', { state: 0, version: 0 });
    expect(cache.get('a')).toEqual({ state: 2, version: 2 });
  });
});
