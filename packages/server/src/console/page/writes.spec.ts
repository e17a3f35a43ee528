import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
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

  it('names the owner of capacity streams without their day', () => {
    expect(ownerOf('capacity:ann:2026-03-02')).toBe('ann');
    expect(ownerOf('filter:abc')).toBeNull();
    expect(ownerOf('credits:a:b')).toBe('a:b');
  });

  it('every event belongs to exactly one write, in log order', () => {
    const event = fc.record({
      stream: fc.constantFrom('account:a', 'credits:a', 'credits:b', 'recordings:a', 'push:b', 'filter:x', 'capacity:a:2026-01-01'),
      time: fc.integer({ min: 0, max: 3 }),
      gap: fc.boolean(),
    });
    fc.assert(
      fc.property(fc.array(event, { maxLength: 40 }), (specs) => {
        let position = 0;
        const events = specs.map((s) => ev((position += s.gap ? 2 : 1), s.stream, s.stream.startsWith('credits:') ? 'CreditsCharged' : 'Something', s.time));
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
