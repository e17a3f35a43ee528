import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { deciderSpec } from '@sdp/testing';
import { fold } from '../kernel/decider.ts';
import { DEFAULT_PACKAGE } from '../accounting/package.ts';
import { matchBytes, matchedRelayDecider, planRelay, RELAY_WINDOW_MS, relayBytesPerWindow, type MatchedEvent, type RelayCommand, type StreamMatch } from './matched-relay.ts';

const H1 = 'a'.repeat(32);
const H2 = 'b'.repeat(32);
const item = { hashes: [H1], interaction: { interaction: { id: 'i1', type: 'facebook' } } };
const big = (hash: string, chars: number): StreamMatch => ({ hashes: [hash], interaction: { interaction: { id: 'x', content: 'x'.repeat(chars) } } });
const BUDGET = 1_000_000;
const relay = (at: number, items: StreamMatch[], budget = BUDGET, unmatched?: string[]): RelayCommand => ({
  type: 'RelayStreamMatches',
  at,
  seq: 7,
  items,
  budget,
  ...(unmatched ? { unmatched } : {}),
});

describe('the relay of matched interactions: given / when / then', () => {
  it('relays what matched with the version of the subscriptions it was decided on', () => {
    const state = deciderSpec(matchedRelayDecider)
      .given([{ type: 'StreamInteractionsMatched', data: { at: 1, seq: 3, items: [item, item] } }])
      .when(relay(2, [item]))
      .then([{ type: 'StreamInteractionsMatched', data: { at: 2, seq: 7, items: [item] } }]);
    expect(state).toEqual({ relayed: 3, window: 0, bytes: 3 * matchBytes(item), told: [] });
  });

  it('relays nothing when nothing matched', () => {
    deciderSpec(matchedRelayDecider).given([]).when(relay(2, [])).then([]);
  });

  it("drops what would pass the window's budget and says so once for each hash", () => {
    const a = big(H1, 600);
    const budget = matchBytes(a) + 10;
    deciderSpec(matchedRelayDecider)
      .given([])
      .when(relay(1_000, [a, a, big(H2, 600)], budget))
      .then([{ type: 'StreamInteractionsMatched', data: { at: 1_000, seq: 7, items: [a], dropped: { count: 2, hashes: [H1, H2] } } }]);
  });

  it('past the budget, a write with nothing new to say writes nothing', () => {
    const a = big(H1, 600);
    const budget = matchBytes(a) + 10;
    deciderSpec(matchedRelayDecider)
      .given([{ type: 'StreamInteractionsMatched', data: { at: 1_000, seq: 3, items: [a], dropped: { count: 1, hashes: [H1] } } }])
      .when(relay(2_000, [a, a], budget))
      .then([]);
  });

  it('a new window relays again, and tells again', () => {
    const a = big(H1, 600);
    const budget = matchBytes(a) + 10;
    const state = deciderSpec(matchedRelayDecider)
      .given([{ type: 'StreamInteractionsMatched', data: { at: 1_000, seq: 3, items: [a], dropped: { count: 1, hashes: [H1] } } }])
      .when(relay(RELAY_WINDOW_MS + 1, [a, a], budget))
      .then([{ type: 'StreamInteractionsMatched', data: { at: RELAY_WINDOW_MS + 1, seq: 7, items: [a], dropped: { count: 1, hashes: [H1] } } }]);
    expect(state).toMatchObject({ window: 1, bytes: matchBytes(a), told: [H1] });
  });

  it('says once a window which hashes were not matched at all', () => {
    deciderSpec(matchedRelayDecider)
      .given([{ type: 'StreamInteractionsMatched', data: { at: 1_000, seq: 3, items: [], unmatched: [H2] } }])
      .when(relay(2_000, [item], BUDGET, [H2]))
      .then([{ type: 'StreamInteractionsMatched', data: { at: 2_000, seq: 7, items: [item] } }]);
  });

  it('a clock set back counts in the window already open', () => {
    const a = big(H1, 600);
    const budget = matchBytes(a) + 10;
    deciderSpec(matchedRelayDecider)
      .given([{ type: 'StreamInteractionsMatched', data: { at: 5 * RELAY_WINDOW_MS, seq: 3, items: [a] } }])
      .when(relay(RELAY_WINDOW_MS, [a], budget))
      .then([{ type: 'StreamInteractionsMatched', data: { at: RELAY_WINDOW_MS, seq: 7, items: [], dropped: { count: 1, hashes: [H1] } } }]);
  });

  it("the default package's budget is 1 KiB a minute per hourly credit", () => {
    expect(relayBytesPerWindow(DEFAULT_PACKAGE)).toBe(10_240_000);
  });
});

const hash = fc.constantFrom(H1, H2, 'c'.repeat(32));
const match = fc.record({ hashes: fc.uniqueArray(hash, { minLength: 1, maxLength: 3 }), interaction: fc.record({ content: fc.string({ maxLength: 3000, unit: 'binary' }) }) });
const offer = fc.record({ step: fc.integer({ min: -RELAY_WINDOW_MS, max: 3 * RELAY_WINDOW_MS }), items: fc.array(match, { maxLength: 6 }) });

describe('the relay budget', () => {
  test.prop([fc.array(offer, { maxLength: 40 }), fc.integer({ min: 0, max: 20_000 })])(
    'relayed bytes in any window never pass the budget, and relayed + dropped = matched',
    (offers, budget) => {
      let state = matchedRelayDecider.initialState();
      const log: MatchedEvent[] = [];
      const inWindow = new Map<number, number>();
      let at = 10 * RELAY_WINDOW_MS;
      let open = 0;
      for (const o of offers) {
        at += o.step;
        const command = relay(at, o.items, budget);
        const plan = planRelay(state, command);
        expect(plan.relay.length + plan.drop.length).toBe(o.items.length);
        const events = matchedRelayDecider.decide(command, state);
        const relayed = events.flatMap((e) => e.data.items);
        expect(relayed).toEqual(plan.relay);
        // Charged to the window it is counted in: never one that was already closed. The relay knows of a
        // window only from what it wrote: an offer that wrote nothing opened none.
        if (events.length > 0) open = Math.max(open, Math.floor(at / RELAY_WINDOW_MS));
        inWindow.set(open, (inWindow.get(open) ?? 0) + relayed.reduce((n, m) => n + matchBytes(m), 0));
        for (const e of events) state = matchedRelayDecider.evolve(state, e);
        log.push(...events);
      }
      for (const bytes of inWindow.values()) expect(bytes).toBeLessThanOrEqual(budget);
      // What the log holds folds to the same state, window by window.
      expect(fold(matchedRelayDecider, log)).toEqual(state);
    },
  );
});
