import { describe, expect, it } from 'vitest';
import { fc, test } from '@fast-check/vitest';
import { deciderSpec } from '@sdp/testing';
import { fold } from '../kernel/decider.ts';
import { creditsDecider, figuresOf, HOUR_MS, MINUTE_MS, openWindow, windowAt, type Credits, type CreditsEvent } from './credit-window.ts';

const T0 = Date.parse('2026-03-01T08:05:37Z');
const spec = () => deciderSpec(creditsDecider);
const line = (cost: number, limit = 10_000) => ({ key: 'general', limit, cost });

describe('credits decider', () => {
  it('opens the window at the minute mark of the first call ("8:05:37 resets at 9:05:00")', () => {
    const s = spec()
      .when({ type: 'ChargeCredits', at: T0, endpoint: 'core.validate', lines: [line(5)] })
      .then([{ type: 'CreditsCharged', data: { at: T0, endpoint: 'core.validate', lines: [{ key: 'general', cost: 5, start: Date.parse('2026-03-01T08:05:00Z') }] } }]);
    expect(openWindow(s, 'general')).toEqual({ start: Date.parse('2026-03-01T08:05:00Z'), reset: Date.parse('2026-03-01T09:05:00Z'), used: 5 });
  });

  it('refuses a cost above what remains, with the figures a client needs (cost > remaining)', () => {
    const charged: CreditsEvent = { type: 'CreditsCharged', data: { at: T0, endpoint: 'x', lines: [{ key: 'general', cost: 8, start: T0 - 37_000 }] } };
    const err = spec().given([charged]).when({ type: 'ChargeCredits', at: T0 + 1, endpoint: 'y', lines: [line(5, 10)] }).thenThrows(429) as unknown as { figures: { cost: number; remaining: number } };
    expect(err.figures).toMatchObject({ cost: 5, remaining: 2 });
  });

  it('opens the window at a free call when none is open, and leaves no trace inside an open one', () => {
    const start = Date.parse('2026-03-01T08:05:00Z');
    const opened: CreditsEvent = { type: 'CreditsCharged', data: { at: T0, endpoint: 'push.pull', lines: [{ key: 'general', cost: 0, start }] } };
    const s = spec().when({ type: 'ChargeCredits', at: T0, endpoint: 'push.pull', lines: [line(0)] }).then([opened]);
    expect(openWindow(s, 'general')).toEqual({ start, reset: start + HOUR_MS, used: 0 });
    spec().given([opened]).when({ type: 'ChargeCredits', at: T0 + 60_000, endpoint: 'push.pull', lines: [line(0)] }).then([]);
  });

  it('checks every line: an identity line can refuse what the account allows', () => {
    spec()
      .when({ type: 'ChargeCredits', at: T0, endpoint: 'x', lines: [line(5), { key: 'identity:i1:general', limit: 4, cost: 5 }] })
      .thenThrows(429);
  });
});

/** A random sequence of calls: gaps of up to 20 minutes, costs from the catalogue's set, a small limit. */
const calls = fc.array(fc.record({ gap: fc.integer({ min: 0, max: 20 * MINUTE_MS }), cost: fc.constantFrom(0, 1, 5, 25) }), { maxLength: 120 });

function replay(limit: number, seq: { gap: number; cost: number }[]) {
  let state: Credits = creditsDecider.initialState();
  let at = T0;
  const outcomes: { at: number; cost: number; admitted: boolean; before: Credits; after: Credits }[] = [];
  for (const { gap, cost } of seq) {
    at += gap;
    const before = state;
    try {
      const events = creditsDecider.decide({ type: 'ChargeCredits', at, endpoint: 'e', lines: [line(cost, limit)] }, state);
      state = fold(creditsDecider, events, state);
      outcomes.push({ at, cost, admitted: true, before, after: state });
    } catch {
      outcomes.push({ at, cost, admitted: false, before, after: state });
    }
  }
  return { state, outcomes, end: at };
}

describe('credit window invariants', () => {
  test.prop([fc.integer({ min: 1, max: 200 }), calls])('credits never go negative', (limit, seq) => {
    for (const o of replay(limit, seq).outcomes) {
      expect(figuresOf(windowAt(o.after, 'general', o.at), limit, o.cost, o.at).remaining).toBeGreaterThanOrEqual(0);
      expect(openWindow(o.after, 'general')?.used ?? 0).toBeLessThanOrEqual(limit);
    }
  });

  test.prop([fc.integer({ min: 1, max: 200 }), calls])('within one window the sum of charged costs equals limit minus remaining', (limit, seq) => {
    const { outcomes, state, end } = replay(limit, seq);
    const w = openWindow(state, 'general');
    if (!w) return;
    const charged = outcomes.filter((o) => o.admitted && o.at >= w.start && o.at < w.reset).reduce((s, o) => s + o.cost, 0);
    expect(limit - figuresOf(windowAt(state, 'general', Math.min(end, w.reset - 1)), limit, 0, end).remaining).toBe(charged);
  });

  test.prop([fc.integer({ min: 1, max: 200 }), calls])('a refused call changes nothing', (limit, seq) => {
    for (const o of replay(limit, seq).outcomes) if (!o.admitted) expect(o.after).toBe(o.before);
  });

  test.prop([fc.integer({ min: 1, max: 200 }), calls])('a window always resets exactly on the minute mark 60 minutes after its start', (limit, seq) => {
    for (const o of replay(limit, seq).outcomes) {
      const w = openWindow(o.after, 'general');
      if (!w) continue;
      expect(w.start % MINUTE_MS).toBe(0);
      expect(w.reset - w.start).toBe(HOUR_MS);
      if (o.admitted && o.cost > 0) expect(o.at - w.start).toBeLessThan(HOUR_MS);
    }
  });
});
