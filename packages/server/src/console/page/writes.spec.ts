import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { accountOfStream, PLATFORM_AGGREGATES } from '@sdp/core';
import { groupWrites, ownerOf } from './writes.js';

const ev = (position: number, stream: string, type: string, time = 1000, data: unknown = {}) => ({ position, stream, type, time, data });
const charge = (position: number, user: string, endpoint: string, cost: number, time = 1000) =>
  ev(position, `credits:${user}`, 'CreditsCharged', time, { at: time, endpoint, lines: [{ key: 'general', cost, start: 0 }] });

describe('which events were one atomic write', () => {
  it("keeps a call's charge with its effects, shared streams included", () => {
    const writes = groupWrites([charge(3, 'u', 'insight.compile', 5), ev(4, 'filter:abc', 'FilterCompiled'), charge(5, 'u', 'insight.start', 25), ev(6, 'recordings:u', 'RecordingStarted')]);
    expect(writes.map((w) => [w.call?.endpoint, w.call?.cost, w.account, w.events.map((e) => e.position)])).toEqual([
      ['insight.compile', 5, 'u', [3, 4]],
      ['insight.start', 25, 'u', [5, 6]],
    ]);
  });

  it('parts writes at another time, another account or a gap in positions', () => {
    const writes = groupWrites([
      charge(1, 'u', 'core.validate', 5),
      ev(2, 'recordings:u', 'RecordingStopped', 2000),
      ev(3, 'recordings:v', 'RecordingStopped', 2000),
      ev(5, 'recordings:v', 'RecordingStarted', 2000),
    ]);
    expect(writes.map((w) => w.events.map((e) => e.position))).toEqual([[1], [2], [3], [5]]);
    expect(writes[1]!.call).toBeNull();
  });

  it("keeps the operator's commands apart, one event each, even at one instant", () => {
    const writes = groupWrites([
      ev(1, 'account:u', 'AccountOpened'),
      ev(2, 'account:u', 'PackageChanged'),
      charge(3, 'u', 'core.validate', 5),
      ev(4, 'account:u', 'AccountDenied'),
      ev(5, 'account:u', 'AccountAllowed'),
    ]);
    expect(writes.map((w) => w.events.map((e) => e.position))).toEqual([[1], [2], [3], [4], [5]]);
  });

  it('takes the writes the server recorded as they are, and reads the rest from the envelope', () => {
    const events = [
      charge(1, 'u', 'insight.start', 25),
      ev(2, 'recordings:u', 'RecordingStarted'),
      ev(3, 'tasks:u', 'TaskQueued'),
      ev(4, 'tasks:u', 'TaskQueued'),
      ev(5, 'tasks:u', 'TaskQueued'),
    ];
    // Uncharged task writes at one instant look like part of the call before them...
    expect(groupWrites(events).map((w) => w.events.length)).toEqual([5]);
    // ...until the recorded ranges say otherwise; a window starting inside a write still holds it whole.
    const writes = groupWrites(events, [[1, 2], [3, 3], [4, 4]]);
    expect(writes.map((w) => [w.events.map((e) => e.position), w.recorded])).toEqual([
      [[1, 2], true],
      [[3], true],
      [[4], true],
      [[5], false],
    ]);
    expect(groupWrites(events.slice(1), [[1, 2]]).map((w) => [w.events.map((e) => e.position), w.call])).toEqual([
      [[2], null],
      [[3, 4, 5], null],
    ]);
  });

  it('names the owner of capacity streams without their day', () => {
    expect(ownerOf('capacity:ann:2026-03-02')).toBe('ann');
    expect(ownerOf('filter:abc')).toBeNull();
    expect(ownerOf('credits:a:b')).toBe('a:b');
  });

  it("names the owner of every aggregate's stream as the core does, stream connections and matches included", () => {
    expect(ownerOf('streams:demo')).toBe('demo');
    expect(ownerOf('stream-matches:demo')).toBe('demo');
    for (const { prefix } of PLATFORM_AGGREGATES) {
      const streams = [`${prefix}a:b`, `${prefix}a:b:2026-03-02`];
      // A day stream without its day, never written, names no account in the core; the page need not agree there.
      for (const stream of streams) if (accountOfStream(stream) !== undefined) expect(ownerOf(stream), stream).toBe(accountOfStream(stream));
      if (streams.every((s) => accountOfStream(s) === undefined)) expect(ownerOf(streams[0]!), streams[0]).toBeNull();
    }
  });

  it('every event belongs to exactly one write, in log order', () => {
    const event = fc.record({
      stream: fc.constantFrom('account:a', 'credits:a', 'credits:b', 'recordings:a', 'push:b', 'filter:x', 'capacity:a:2026-01-01'),
      time: fc.integer({ min: 0, max: 3 }),
      gap: fc.boolean(),
    });
    fc.assert(
      fc.property(fc.array(event, { maxLength: 40 }), fc.array(fc.integer({ min: 1, max: 4 }), { maxLength: 20 }), (specs, sizes) => {
        let position = 0;
        const events = specs.map((s) => ev((position += s.gap ? 2 : 1), s.stream, s.stream.startsWith('credits:') ? 'CreditsCharged' : 'Something', s.time));
        let next = 1;
        const known = sizes.map((n): [number, number] => [next, (next += n) - 1]);
        expect(groupWrites(events, known).flatMap((w) => w.events)).toEqual(events);
        const writes = groupWrites(events);
        expect(writes.flatMap((w) => w.events)).toEqual(events);
        for (const w of writes) {
          expect(w.events.slice(1).every((e) => e.type !== 'CreditsCharged' && e.time === w.time)).toBe(true);
          if (w.events.some((e) => e.stream.startsWith('account:'))) expect(w.events).toHaveLength(1);
        }
      }),
    );
  });
});
