import { describe, expect } from 'vitest';
import { fc, test } from '@fast-check/vitest';
import { matchedRelayStream, type MatchedEvent } from '@sdp/core/internal';
import { DeliveryTally } from './delivery-tally.ts';
import { FanOut } from './fan-out.ts';
import { LiveConnection, type Delivered, type MessageSink } from './live-connection.ts';

const HASHES = ['h0', 'h1', 'h2', 'h3', 'h4'];

/** A sink that records what it is asked, answers each write later (`answerAll`), and corks like a socket. */
function recordingSink() {
  const calls: string[] = [];
  const waiting: Delivered[] = [];
  const sink: MessageSink = {
    write: (out, done) => {
      calls.push(out.text);
      if (done) waiting.push(done);
    },
    buffered: () => 0,
    close: () => calls.push('close'),
    cork: () => calls.push('cork'),
    uncork: () => calls.push('uncork'),
  };
  return { sink, calls, answerAll: (ok: boolean) => waiting.splice(0).forEach((done) => done(ok)) };
}

const subscriber = fc.record({
  hashes: fc.subarray(HASHES),
  /** The version of the account's subscriptions each of its subscriptions began at. */
  seq: fc.integer({ min: 0, max: 3 }),
  wrapped: fc.boolean(),
});
const item = fc.record({ hashes: fc.subarray(HASHES, { minLength: 1 }), fb: fc.boolean() });
const event = fc.record({ seq: fc.integer({ min: 0, max: 3 }), items: fc.array(item, { maxLength: 6 }) });

describe('the fan-out', () => {
  test.prop([fc.array(subscriber, { minLength: 1, maxLength: 6 }), fc.array(event, { minLength: 1, maxLength: 3 }), fc.boolean()])(
    'a page of matches reaches each connection in log order, corked once; a connection that misses everything is never touched; each message is counted once its transport took it',
    (subscribers, events, taken) => {
      const tally = new DeliveryTally();
      const cuts: string[] = [];
      const fanOut = new FanOut(tally, () => 0, (conn) => cuts.push(conn.id));
      const conns = subscribers.map((s, i) => {
        const rec = recordingSink();
        const conn = new LiveConnection(`c${i}`, { username: 'ada', apiKey: 'k' }, 'ada', 'websocket', s.wrapped, 0, rec.sink, 1 << 20, () => cuts.push(`c${i}`));
        conn.ready(0);
        for (const hash of s.hashes) {
          conn.subs.set(hash, { seq: s.seq, held: [] });
          fanOut.add(conn, hash);
        }
        return { conn, rec, s };
      });

      let serial = 0;
      const stored = events.map((e, version) => {
        const items = e.items.map((it) => {
          const interaction: Record<string, unknown> = { interaction: { id: `i${serial++}` } };
          if (it.fb) interaction.fb = { content: 'x' };
          return { hashes: it.hashes, interaction };
        });
        return { type: 'StreamInteractionsMatched', data: { at: 0, seq: e.seq, items }, stream: matchedRelayStream('ada'), version } as MatchedEvent & { stream: string; version: number };
      });
      for (const e of stored) fanOut.deliver(e, 60_000);
      fanOut.endPage();

      const byHash = new Map<string, number>();
      for (const { conn, rec, s } of conns) {
        const expected: string[] = [];
        for (const e of stored) {
          if (e.data.seq! < s.seq) continue;
          for (const it of e.data.items) {
            for (const hash of it.hashes) {
              if (!s.hashes.includes(hash)) continue;
              const json = JSON.stringify(it.interaction);
              expected.push(s.wrapped ? `{"hash":"${hash}","data":${json}}` : json);
              byHash.set(hash, (byHash.get(hash) ?? 0) + 1);
            }
          }
        }
        expect(rec.calls).toEqual(expected.length === 0 ? [] : ['cork', ...expected, 'uncork']);
        expect(JSON.parse(`[${expected.join(',') || ''}]`)).toHaveLength(expected.length);
        // Counted as the transport answers, not as it is written.
        expect(conn.delivered).toBe(0);
        rec.answerAll(taken);
        expect(conn.delivered).toBe(taken ? expected.length : 0);
      }
      const counts = tally.take('ada');
      const counted = new Map<string, number>();
      for (const licences of Object.values(counts ?? {})) for (const [hash, l] of Object.entries(licences)) counted.set(hash, (counted.get(hash) ?? 0) + l.interaction!);
      expect(counted).toEqual(taken ? byHash : new Map());
      expect(cuts).toEqual([]);
    },
  );
});
