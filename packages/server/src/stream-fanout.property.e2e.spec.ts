/**
 * The live fan-out as a property, over real WebSockets: random sequences of connect, subscribe,
 * unsubscribe, ingest and disconnect; each subscription receives exactly the matching interactions
 * ingested while it was subscribed, in order, and the credits charged are 5 for each subscribe of a hash
 * its connection did not hold; `/usage` then counts as licences exactly what the subscriptions received.
 */
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { fc, test } from '@fast-check/vitest';
import type { RunningSdp } from './server.ts';
import { account, admin, pause, start, stopAll, WsClient, wsUrl, type Json } from '../test/stream-kit.ts';

const WORDS = ['coffee', 'tea', 'milk'] as const;
const FILTERS = ['fb.content contains "coffee"', 'fb.content contains "tea"', 'fb.content contains_any "coffee,milk"'];
const matches = (filter: number, content: string): boolean =>
  filter === 0 ? content.includes('coffee') : filter === 1 ? content.includes('tea') : content.includes('coffee') || content.includes('milk');
/** A hash nobody compiled: its warning marks that the actions sent before it were taken. */
const BARRIER = 'f'.repeat(32);

type Step =
  | { type: 'connect' }
  | { type: 'subscribe'; conn: number; filter: number }
  | { type: 'unsubscribe'; conn: number; filter: number }
  | { type: 'disconnect'; conn: number }
  | { type: 'ingest'; contents: string[] };

const stepArb: fc.Arbitrary<Step> = fc.oneof(
  fc.constant<Step>({ type: 'connect' }),
  fc.record({ type: fc.constant('subscribe' as const), conn: fc.nat(2), filter: fc.nat(2) }),
  fc.record({ type: fc.constant('unsubscribe' as const), conn: fc.nat(2), filter: fc.nat(2) }),
  fc.record({ type: fc.constant('disconnect' as const), conn: fc.nat(2) }),
  fc.record({ type: fc.constant('ingest' as const), contents: fc.array(fc.subarray([...WORDS], { minLength: 1 }).map((w) => w.join(' ')), { minLength: 1, maxLength: 3 }) }),
);

let sdp: RunningSdp;
let run = 0;
beforeAll(async () => {
  sdp = await start();
});
afterAll(stopAll);

describe('live fan-out', () => {
  test.prop([fc.array(stepArb, { minLength: 1, maxLength: 14 })], { numRuns: 12 })(
    'each subscription receives exactly the matching interactions ingested while it was subscribed, in order; credits are 5 per subscribe of a hash its connection did not hold; licences are what was received',
    async (steps) => {
      const who = await account(sdp, `fan${run++}`);
      const hashes: string[] = [];
      for (const f of FILTERS) hashes.push(await who.compile(f));
      const before = await who.remaining();
      const conns: { client: WsClient; held: Set<number>; expected: Map<number, string[]>; open: boolean }[] = [];
      let charged = 0;
      let serial = 0;
      const barrier = async (c: (typeof conns)[number]) => {
        const seen = c.client.messages.filter((m: Json) => m.hash === BARRIER).length;
        c.client.send({ action: 'subscribe', hash: BARRIER });
        await c.client.until((m: Json) => m.hash === BARRIER, seen + 1);
      };
      for (const step of steps) {
        if (step.type === 'connect') {
          if (conns.filter((c) => c.open).length >= 3) continue;
          conns.push({ client: await WsClient.open(wsUrl(sdp, `/multi?username=${who.username}&api_key=${who.key}`)), held: new Set(), expected: new Map(), open: true });
          continue;
        }
        if (step.type === 'ingest') {
          const contents = step.contents.map((c) => `${c} #${serial++}`);
          await who.ingest(contents);
          contents.forEach((content, i) => {
            for (const c of conns) {
              if (!c.open) continue;
              for (const f of c.held) if (matches(f, content)) c.expected.get(f)!.push(`${content}-${i}`);
            }
          });
          continue;
        }
        const c = conns[step.conn];
        if (!c || !c.open) continue;
        if (step.type === 'disconnect') {
          c.open = false;
          c.client.ws.close();
          await pause(50);
        } else if (step.type === 'subscribe') {
          if (!c.held.has(step.filter)) {
            charged += 5;
            c.held.add(step.filter);
            if (!c.expected.has(step.filter)) c.expected.set(step.filter, []);
          }
          c.client.send({ action: 'subscribe', hash: hashes[step.filter] });
          await barrier(c);
        } else {
          c.held.delete(step.filter);
          c.client.send({ action: 'unsubscribe', hash: hashes[step.filter] });
          await barrier(c);
        }
      }
      await sdp.streams.caughtUp();
      for (const c of conns) {
        const want = [...c.expected.values()].reduce((n, list) => n + list.length, 0);
        if (c.open) await c.client.until((m: Json) => m.data !== undefined, want);
      }
      await pause(100);
      for (const c of conns) {
        for (const [f, list] of c.expected) {
          const got = c.client.messages.filter((m: Json) => m.hash === hashes[f] && m.data).map((m: Json) => m.data.interaction.id);
          expect(got).toEqual(list);
        }
        const stray = c.client.messages.filter((m: Json) => m.data && !c.expected.has(hashes.indexOf(m.hash)));
        expect(stray).toEqual([]);
        c.client.ws.close();
      }
      expect(before - (await who.remaining())).toBe(charged);
      // Each disconnect records what its connection delivered; the clock moves so the period holds it.
      await admin(sdp, 'POST', '/clock', { advance_ms: 60_000 });
      const received = hashes.map((_, f) => conns.reduce((n, c) => n + (c.expected.get(f)?.length ?? 0), 0));
      const licences = async () => {
        const usage = (await who.call('/usage', { period: 'current' })).body.streams ?? {};
        return hashes.map((hash) => usage[hash]?.licenses.interaction ?? 0);
      };
      const deadline = Date.now() + 3000;
      while (JSON.stringify(await licences()) !== JSON.stringify(received) && Date.now() < deadline) await pause(50);
      expect(await licences()).toEqual(received);
    },
    120_000,
  );
});
