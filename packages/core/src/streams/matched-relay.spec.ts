import { describe, expect, it } from 'vitest';
import { deciderSpec } from '@sdp/testing';
import { matchedRelayDecider } from './matched-relay.ts';

const H1 = 'a'.repeat(32);
const item = { hashes: [H1], interaction: { interaction: { id: 'i1', type: 'facebook' } } };

describe('the relay of matched interactions: given / when / then', () => {
  it('relays what matched with the version of the subscriptions it was decided on', () => {
    const state = deciderSpec(matchedRelayDecider)
      .given([{ type: 'StreamInteractionsMatched', data: { at: 1, seq: 3, items: [item, item] } }])
      .when({ type: 'RelayStreamMatches', at: 2, seq: 7, items: [item] })
      .then([{ type: 'StreamInteractionsMatched', data: { at: 2, seq: 7, items: [item] } }]);
    expect(state).toEqual({ relayed: 3 });
  });

  it('relays nothing when nothing matched', () => {
    deciderSpec(matchedRelayDecider).given([]).when({ type: 'RelayStreamMatches', at: 2, seq: 7, items: [] }).then([]);
  });
});
