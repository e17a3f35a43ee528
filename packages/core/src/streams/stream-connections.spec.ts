import { describe, expect, it } from 'vitest';
import { fc, test } from '@fast-check/vitest';
import { deciderSpec } from '@sdp/testing';
import { fold } from '../kernel/decider.ts';
import {
  MAX_HASHES_PER_CONNECTION,
  STREAM_USAGE_KEPT_MS,
  opensPerHour,
  ENDED_CHUNK,
  connectionHosts,
  endedSubscriptions,
  licenceTypeOf,
  liveHashes,
  subscriptionOf,
  streamConnectionsDecider,
  streamUsage,
  type DeliveredCounts,
  type StreamCommand,
  type StreamEvent,
} from './stream-connections.ts';

const H1 = 'a'.repeat(32);
const H2 = 'b'.repeat(32);
const spec = () => deciderSpec(streamConnectionsDecider);
const connected = (connection = 'c1', at = 1000): StreamEvent => ({ type: 'StreamConnected', data: { connection, transport: 'websocket', at } });
const subscribed = (hash = H1, connection = 'c1', at = 1000): StreamEvent => ({ type: 'StreamSubscribed', data: { connection, hash, at } });
const open = (connection = 'c1', limit = 25): StreamCommand => ({ type: 'OpenStreamConnection', connection, transport: 'websocket', at: 1000, limit });
const fb = { interaction: { type: 'facebook', content: 'x' } };

describe('stream connections: given / when / then', () => {
  it('opens a connection', () => {
    const state = spec().given([]).when(open()).then([connected()]);
    expect(state.connections.c1).toMatchObject({ transport: 'websocket', openedAt: 1000, count: 0 });
  });

  it('refuses a connection past the package field stream_connections with 429', () => {
    spec().given([connected('c1'), connected('c2')]).when(open('c3', 2)).thenThrows(429, /stream_connections/);
  });

  it('a closed connection frees its place', () => {
    spec()
      .given([connected('c1'), { type: 'StreamDisconnected', data: { connection: 'c1', at: 2000, reason: 'closed' } }])
      .when(open('c2', 1))
      .then([connected('c2')]);
  });

  it('subscribes a connection to a hash', () => {
    const state = spec().given([connected()]).when({ type: 'SubscribeStream', connection: 'c1', hash: H1, at: 1000 }).then([subscribed()]);
    expect(liveHashes(state)).toEqual([H1]);
    expect(subscriptionOf(state, 'c1', H1)).toEqual({ since: 1000, seq: 2 });
  });

  it('a repeated subscribe changes nothing (and so charges nothing)', () => {
    spec().given([connected(), subscribed()]).when({ type: 'SubscribeStream', connection: 'c1', hash: H1, at: 2000 }).then([]);
  });

  it('refuses a subscribe on a connection that is not open with 404', () => {
    spec().given([]).when({ type: 'SubscribeStream', connection: 'c9', hash: H1, at: 1000 }).thenThrows(404, /c9/);
  });

  it(`refuses the ${MAX_HASHES_PER_CONNECTION + 1}st hash of a connection with 400`, () => {
    const given: StreamEvent[] = [connected()];
    for (let k = 0; k < MAX_HASHES_PER_CONNECTION; k++) given.push(subscribed(k.toString(16).padStart(32, '0')));
    spec().given(given).when({ type: 'SubscribeStream', connection: 'c1', hash: H2, at: 1000 }).thenThrows(400, /5000 hashes/);
  });

  it('unsubscribes, and an unsubscribe of a hash not held changes nothing', () => {
    const state = spec()
      .given([connected(), subscribed()])
      .when({ type: 'UnsubscribeStream', connection: 'c1', hash: H1, at: 5000 })
      .then([{ type: 'StreamUnsubscribed', data: { connection: 'c1', hash: H1, at: 5000 } }]);
    expect(liveHashes(state)).toEqual([]);
    expect(endedSubscriptions(state)).toEqual([{ hash: H1, from: 1000, to: 5000 }]);
    spec().given([connected()]).when({ type: 'UnsubscribeStream', connection: 'c1', hash: H1, at: 5000 }).then([]);
  });

  it('a disconnect ends every subscription of the connection; a second is no change', () => {
    const state = spec()
      .given([connected(), subscribed(H1), subscribed(H2)])
      .when({ type: 'CloseStreamConnection', connection: 'c1', at: 9000, reason: 'closed' })
      .then([{ type: 'StreamDisconnected', data: { connection: 'c1', at: 9000, reason: 'closed' } }]);
    expect(state.connections).toEqual({});
    expect(endedSubscriptions(state).map((e) => e.hash).sort()).toEqual([H1, H2]);
    spec().given([]).when({ type: 'CloseStreamConnection', connection: 'c1', at: 9000, reason: 'closed' }).then([]);
  });

  it('records delivered interactions as counts by minute and hash, adding to what was recorded before', () => {
    const minutes: DeliveredCounts = { '60000': { [H1]: { interaction: 2, facebook: 2 }, [H2]: { interaction: 1 } } };
    const state = spec()
      .given([connected('c1'), subscribed(H1, 'c1'), { type: 'StreamInteractionsDelivered', data: { at: 61_000, minutes: { '60000': { [H1]: { interaction: 1, facebook: 1 } } } } }])
      .when({ type: 'RecordStreamDeliveries', at: 119_000, minutes })
      .then([{ type: 'StreamInteractionsDelivered', data: { at: 119_000, minutes } }]);
    expect(state.delivered[H1]).toEqual({ '60000': { interaction: 3, facebook: 3 } });
    expect(state.delivered[H2]).toEqual({ '60000': { interaction: 1 } });
  });

  it('records nothing when nothing was delivered, and refuses counts that are not counts', () => {
    spec().given([connected()]).when({ type: 'RecordStreamDeliveries', at: 1, minutes: {} }).then([]);
    spec().given([connected()]).when({ type: 'RecordStreamDeliveries', at: 1, minutes: { '0': { [H1]: {} } } }).then([]);
    spec().given([]).when({ type: 'RecordStreamDeliveries', at: 1, minutes: { '0': { [H1]: { interaction: -1 } } } }).thenThrows(400, /whole numbers/);
    spec().given([]).when({ type: 'RecordStreamDeliveries', at: 1, minutes: { '61': { [H1]: { interaction: 1 } } } }).thenThrows(400, /minute/);
  });

  it('still folds matches written into the aggregate by earlier builds as licences, one per live subscription (their billing then)', () => {
    const state = fold(streamConnectionsDecider, [
      connected('c1'),
      connected('c2'),
      subscribed(H1, 'c1'),
      subscribed(H1, 'c2'),
      subscribed(H2, 'c1'),
      { type: 'StreamInteractionsMatched', data: { at: 61_000, items: [{ hashes: [H1, H2], interaction: fb }] } },
    ]);
    expect(state.delivered[H1]).toEqual({ '60000': { interaction: 2, facebook: 2 } });
    expect(state.delivered[H2]).toEqual({ '60000': { interaction: 1, facebook: 1 } });
  });
});

describe('stream connections of a lost host: given / when / then', () => {
  const on = (connection: string, host: string | undefined, at = 1000): StreamEvent => ({ type: 'StreamConnected', data: { connection, transport: 'http-duplex', at, ...(host ? { host } : {}) } });
  const lost = (host: string, aliveAt: number): StreamCommand => ({ type: 'EndLostHostConnections', host, aliveAt, reason: 'host lost' });

  it('records the host a connection is opened on', () => {
    const state = spec().given([]).when({ type: 'OpenStreamConnection', connection: 'c1', transport: 'websocket', at: 1000, limit: 25, host: 'h1' }).then([{ type: 'StreamConnected', data: { connection: 'c1', transport: 'websocket', at: 1000, host: 'h1' } }]);
    expect(state.connections.c1!.host).toBe('h1');
    expect(connectionHosts(state)).toEqual(['h1']);
  });

  it("ends every connection of the lost host, and only its, as it was last known alive", () => {
    const state = spec()
      .given([on('c1', 'dead'), on('c2', 'alive'), on('c3', 'dead', 4000), on('c4', undefined), subscribed(H1, 'c1', 1000), subscribed(H1, 'c2', 1000)])
      .when(lost('dead', 3000))
      .then([
        { type: 'StreamDisconnected', data: { connection: 'c1', at: 3000, reason: 'host lost' } },
        // Opened after the host's last renewal: it was alive then, so the connection ends when it began.
        { type: 'StreamDisconnected', data: { connection: 'c3', at: 4000, reason: 'host lost' } },
      ]);
    expect(Object.keys(state.connections).sort()).toEqual(['c2', 'c4']);
    expect(endedSubscriptions(state)).toEqual([{ hash: H1, from: 1000, to: 3000 }]);
    expect(liveHashes(state)).toEqual([H1]);
  });

  it('frees the places the lost host held: a connection past the limit is accepted after', () => {
    const given = [on('c1', 'dead'), on('c2', 'alive')];
    spec().given(given).when(open('c3', 2)).thenThrows(429, /stream_connections/);
    spec()
      .given([...given, { type: 'StreamDisconnected', data: { connection: 'c1', at: 1500, reason: 'host lost' } }])
      .when(open('c3', 2))
      .then([connected('c3')]);
  });

  it('a host with nothing open (or released already) is no change', () => {
    spec().given([on('c1', 'alive')]).when(lost('dead', 5000)).then([]);
  });

  it('seconds of a subscription begun after the host was last known alive count nothing, never negative', () => {
    const state = fold(streamConnectionsDecider, [on('c1', 'dead', 0), subscribed(H1, 'c1', 9000), { type: 'StreamDisconnected', data: { connection: 'c1', at: 5000, reason: 'host lost' } }]);
    expect(endedSubscriptions(state)).toEqual([{ hash: H1, from: 9000, to: 9000 }]);
    expect(streamUsage(state, 0, 60_000).has(H1)).toBe(false);
  });

  test.prop([fc.array(fc.record({ host: fc.constantFrom('h1', 'h2', 'h3'), subscribedAt: fc.integer({ min: 0, max: 10_000 }) }), { maxLength: 20 }), fc.integer({ min: 0, max: 10_000 })])(
    'after a host is released nothing of it stays open, every other connection stays, and no subscription of it counts time past max(aliveAt, its start)',
    (conns, aliveAt) => {
      const given: StreamEvent[] = [];
      conns.forEach((c, k) => given.push(on(`c${k}`, c.host, 0), subscribed(H1, `c${k}`, c.subscribedAt)));
      const before = fold(streamConnectionsDecider, given);
      const events = streamConnectionsDecider.decide(lost('h1', aliveAt), before);
      const after = fold(streamConnectionsDecider, [...given, ...events]);
      expect(Object.values(after.connections).every((c) => c.host !== 'h1')).toBe(true);
      expect(Object.keys(after.connections).length).toBe(conns.filter((c) => c.host !== 'h1').length);
      for (const e of endedSubscriptions(after)) expect(e.to).toBe(Math.max(e.from, aliveAt));
    },
  );
});

describe('stream usage', () => {
  it('reports seconds subscribed within the window and licences delivered', () => {
    const state = fold(streamConnectionsDecider, [
      connected('c1', 0),
      subscribed(H1, 'c1', 0),
      { type: 'StreamInteractionsDelivered', data: { at: 35_000, minutes: { '0': { [H1]: { interaction: 1, facebook: 1 } } } } },
      { type: 'StreamUnsubscribed', data: { connection: 'c1', hash: H1, at: 90_000 } },
      subscribed(H2, 'c1', 100_000),
    ]);
    const usage = streamUsage(state, 0, 120_000);
    expect(usage.get(H1)).toEqual({ seconds: 90, licenses: { interaction: 1, facebook: 1 } });
    expect(usage.get(H2)).toEqual({ seconds: 20, licenses: { interaction: 0 } });
    expect(streamUsage(state, 95_000, 120_000).has(H1)).toBe(false);
  });

  test.prop([fc.array(fc.integer({ min: 0, max: 3 * STREAM_USAGE_KEPT_MS }), { minLength: 1, maxLength: 60 })])(
    'what is kept for usage is bounded by a day: nothing older than STREAM_USAGE_KEPT_MS stays after a later event',
    (gaps) => {
      const events: StreamEvent[] = [connected('c1', 0)];
      let at = 0;
      for (const gap of gaps) {
        at += gap;
        const minute = String(Math.floor(at / 60_000) * 60_000);
        events.push(subscribed(H1, 'c1', at), { type: 'StreamInteractionsDelivered', data: { at, minutes: { [minute]: { [H1]: { interaction: 1 } } } } });
        events.push({ type: 'StreamUnsubscribed', data: { connection: 'c1', hash: H1, at: at + 1 } });
      }
      const state = fold(streamConnectionsDecider, events);
      for (const e of endedSubscriptions(state)) expect(e.to).toBeGreaterThanOrEqual(at + 1 - STREAM_USAGE_KEPT_MS);
      for (const minute of Object.keys(state.delivered[H1] ?? {})) expect(Number(minute)).toBeGreaterThanOrEqual(at - STREAM_USAGE_KEPT_MS - 60_000);
    },
  );

  test.prop([fc.array(fc.tuple(fc.integer({ min: 0, max: 3 * STREAM_USAGE_KEPT_MS }), fc.integer({ min: 0, max: 3 * STREAM_USAGE_KEPT_MS })), { minLength: 1, maxLength: 3 * ENDED_CHUNK })], { numRuns: 40 })(
    'ends out of time order are forgotten as each event finds them: the ends at or after its horizon, in the order they ended',
    (spans) => {
      const events: StreamEvent[] = [];
      let expected: { hash: string; from: number; to: number }[] = [];
      const forget = (at: number) => (expected = expected.filter((e) => e.to >= at - STREAM_USAGE_KEPT_MS));
      spans.forEach(([from, at], k) => {
        events.push(connected(`c${k}`, from), subscribed(H1, `c${k}`, from), { type: 'StreamDisconnected', data: { connection: `c${k}`, at, reason: 'closed' } });
        forget(from);
        expected.push({ hash: H1, from, to: Math.max(from, at) });
        forget(at);
      });
      const state = fold(streamConnectionsDecider, events);
      expect(endedSubscriptions(state)).toEqual(expected);
      // The chunks: none empty, none past its size, each knowing its earliest end.
      for (const chunk of state.ended) {
        expect(chunk.ends.length).toBeGreaterThan(0);
        expect(chunk.ends.length).toBeLessThanOrEqual(ENDED_CHUNK);
        expect(chunk.earliest).toBe(Math.min(...chunk.ends.map((e) => e.to)));
      }
    },
  );

  test.prop([fc.array(fc.record({ hashes: fc.integer({ min: 1, max: ENDED_CHUNK + 3 }), gap: fc.integer({ min: 0, max: STREAM_USAGE_KEPT_MS / 2 }) }), { minLength: 1, maxLength: 6 })], { numRuns: 20 })(
    'a close that ends more subscriptions than a chunk holds keeps every one of them, in order, after the ends kept before it',
    (closes) => {
      let state = streamConnectionsDecider.initialState();
      let at = 0;
      let expected: { hash: string; from: number; to: number }[] = [];
      closes.forEach(({ hashes, gap }, k) => {
        const from = at;
        at += gap + 1;
        const events: StreamEvent[] = [connected(`c${k}`, from)];
        for (let h = 0; h < hashes; h++) events.push(subscribed(`h${h}`.padEnd(32, 'x'), `c${k}`, from));
        events.push({ type: 'StreamDisconnected', data: { connection: `c${k}`, at, reason: 'closed' } });
        expected = expected.filter((e) => e.to >= at - STREAM_USAGE_KEPT_MS);
        state = fold(streamConnectionsDecider, events, state);
        const ends = endedSubscriptions(state);
        expected.push(...ends.slice(ends.length - hashes));
        expect(ends).toEqual(expected);
        expect(ends.slice(ends.length - hashes).every((e) => e.from === from && e.to === at)).toBe(true);
      });
    },
  );
});

describe('licence types', () => {
  it('a source name from the data is a licence type; a long, odd or inherited name counts only as an interaction', () => {
    expect(licenceTypeOf({ interaction: { type: 'twitter_gnip' } })).toBe('twitter_gnip');
    expect(licenceTypeOf({ fb: {} })).toBe('facebook');
    for (const type of ['constructor', '__proto__', 'toString', 'Twitter', 'x'.repeat(40), 'interaction', 'a b']) expect(licenceTypeOf({ interaction: { type } })).toBeUndefined();
  });
});

describe('opens an hour', () => {
  const closed = (connection: string, at: number): StreamEvent => ({ type: 'StreamDisconnected', data: { connection, at, reason: 'closed' } });

  it('refuses the open past the hour\'s bound with 429 (limit stream_opens), and opens again once the oldest is an hour old', () => {
    const given: StreamEvent[] = [];
    for (let i = 0; i < 60; i++) given.push(connected(`c${i}`, 1000 + i), closed(`c${i}`, 1000 + i));
    spec().given(given).when({ type: 'OpenStreamConnection', connection: 'n', transport: 'websocket', at: 2000, limit: 1 }).thenThrows(429, /opened an hour/);
    spec().given(given).when({ type: 'OpenStreamConnection', connection: 'n', transport: 'websocket', at: 1000 + 3_600_001, limit: 1 }).then([connected('n', 1000 + 3_600_001)]);
  });

  test.prop(
    [
      fc.integer({ min: 1, max: 8 }),
      fc.array(fc.record({ gap: fc.oneof(fc.integer({ min: 0, max: 2_000 }), fc.integer({ min: 0, max: 300_000 })), close: fc.boolean() }), { minLength: 1, maxLength: 300 }),
    ],
    { numRuns: 60 },
  )('never more opens in any hour than opensPerHour(stream_connections), whatever the pace of opens and closes', (limit, steps) => {
    let state = streamConnectionsDecider.initialState();
    let at = 1_000_000;
    const opens: number[] = [];
    let n = 0;
    for (const step of steps) {
      at += step.gap;
      const open = Object.keys(state.connections);
      if (step.close && open.length > 0) {
        state = fold(streamConnectionsDecider, streamConnectionsDecider.decide({ type: 'CloseStreamConnection', connection: open[0]!, at, reason: 'closed' }, state), state);
        continue;
      }
      try {
        const events = streamConnectionsDecider.decide({ type: 'OpenStreamConnection', connection: `c${n++}`, transport: 'http', at, limit }, state);
        state = fold(streamConnectionsDecider, events, state);
        opens.push(at);
      } catch (error) {
        expect((error as { status: number }).status).toBe(429);
      }
      // The invariant: the opens of the hour before any instant never pass the bound, and the state keeps no more.
      expect(opens.filter((t) => t > at - 3_600_000).length).toBeLessThanOrEqual(opensPerHour(limit));
      expect(state.opens!.length).toBeLessThanOrEqual(opensPerHour(limit));
    }
  });
});
