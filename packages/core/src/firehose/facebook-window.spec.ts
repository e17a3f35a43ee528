import type { EndpointId } from '../catalogue/endpoints.ts';
import { describe, expect, it } from 'vitest';
import { fc, test } from '@fast-check/vitest';
import { sha256 } from '@noble/hashes/sha2';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils';
import { Engine } from '../pipeline/engine.ts';
import { MemoryEventStore } from '../kernel/memory-store.ts';
import { seededIds } from '../kernel/ports.ts';
import { filterHandlers } from '../filters/handlers.ts';
import { recordingHandlers } from '../recordings/handlers.ts';
import { streamHandlers } from '../streams/stream-handlers.ts';
import { StreamCalls } from '../streams/stream-calls.ts';
import { accountDecider, accountStream } from '../accounting/account.ts';
import { recordInteractions, type TextKeyedInteractions } from '../recordings/record-interactions.ts';
import type { Interaction } from '../filters/index.ts';
import { FB_ROW, FacebookWindow, drawFacebook, facebookTextKey, firehoseMinute, firehoseWindow, scanFacebook } from './synthetic-interactions.ts';
import { SeededRandom } from './seeded-random.ts';

const MINUTE = 60_000;
const T0 = Date.parse('2026-04-01T00:00:00Z');

const texts = (i: Interaction) => {
  const fb = i.fb as Record<string, unknown>;
  return { content: (i.interaction as Record<string, unknown>).content, fb: 'content' in fb ? fb.content : 'absent' };
};

describe('the social network firehose drawn as rows', () => {
  it('makes the interactions the generator made before its draws and its building were apart', () => {
    // SHA-256 over JSON of 2,000 interactions a seed, taken with the generator that drew and built in one go.
    const before: Record<number, string> = {
      1: '8416587246f68f44453d8eb03ff08f8cfcba7fbb8ef28fb84a83d497a7578b26',
      7: 'bfc39cf82eec705aef19c2ad65967a7f5886b11305d3b9fac513acb9a0f03e3e',
      123456: 'cf38033c5698e7b46a50f2df80ad5792d7366d6b2aaae8c83e66e5ea986463b6',
    };
    for (const seed of [1, 7, 123456]) {
      const h = sha256.create();
      for (let minute = 29_000_000; minute < 29_000_010; minute++) for (const i of firehoseMinute(seed, 'facebook', minute, 200)) h.update(utf8ToBytes(JSON.stringify(i)));
      expect(bytesToHex(h.digest())).toBe(before[seed]);
    }
  });

  test.prop([fc.integer(), fc.integer({ min: 1, max: 400 })], { numRuns: 50 })(
    'scanning an interaction moves the generator exactly as far as drawing it, and reads the same text key',
    (seed, count) => {
      const drawn = new SeededRandom(seed);
      const scanned = new SeededRandom(seed);
      const row = new Uint32Array(FB_ROW);
      for (let n = 0; n < count; n++) {
        drawFacebook(drawn, row, 0);
        expect(scanFacebook(scanned)).toBe(facebookTextKey(row, 0));
        expect(scanned.position).toBe(drawn.position);
      }
    },
  );

  test.prop([fc.integer(), fc.integer({ min: 1, max: 120 }), fc.integer({ min: 0, max: 3 * MINUTE }), fc.integer({ min: 1, max: 4 * MINUTE })], { numRuns: 40 })(
    'a window of rows builds exactly the interactions of the same window built at once, in order',
    (seed, perMinute, from, span) => {
      const w = new FacebookWindow(seed, perMinute, T0 + from, T0 + from + span);
      const built = Array.from({ length: w.length }, (_, k) => w.build(k));
      expect(built).toEqual(firehoseWindow(seed, 'facebook', perMinute, T0 + from, T0 + from + span));
    },
  );

  test.prop([fc.integer(), fc.integer({ min: 100, max: 600 })], { numRuns: 10 })(
    'interactions with one text key hold the same texts, and a probe holds exactly them and nothing else',
    (seed, perMinute) => {
      const w = new FacebookWindow(seed, perMinute, T0, T0 + 3 * MINUTE);
      const byKey = new Map<number, ReturnType<typeof texts>>();
      for (let k = 0; k < w.length; k++) {
        const real = texts(w.build(k));
        const probe = w.probe(k);
        expect(texts(probe)).toEqual(real);
        expect(Object.keys(probe).sort()).toEqual(['fb', 'interaction']);
        const seen = byKey.get(w.keyOf(k));
        if (seen) expect(real).toEqual(seen);
        else byKey.set(w.keyOf(k), real);
      }
    },
  );
});

/**
 * An account with recordings of these filters and a stream connection subscribed to those hashes, fed
 * one window: as rows, or as the built list. Answers what was recorded and relayed.
 */
async function recorded(filters: string[], offer: (seed: number, from: number, to: number) => Interaction[] | TextKeyedInteractions, hashes: string[] = []) {
  const time = { now: T0 + 20 * MINUTE };
  const store = new MemoryEventStore();
  const engine = new Engine({ store, clock: { now: () => time.now }, ids: seededIds(9), handlers: { ...filterHandlers, ...recordingHandlers, ...streamHandlers } });
  const creds = { username: 'op', apiKey: 'op-key-0001' };
  await engine.openAccount({ username: 'op', api_key: creds.apiKey });
  const call = (endpoint: EndpointId, params: Record<string, unknown>) => engine.call({ version: '1.5', endpoint, credentials: creds, params });
  for (const [k, csdl] of filters.entries()) {
    const hash = ((await call('insight.compile', { csdl })).body as { hash: string }).hash;
    expect((await call('insight.start', { hash, name: `r${k}` })).status).toBe(200);
  }
  if (hashes.length > 0) {
    const calls = new StreamCalls(engine);
    const connection = ((await calls.open(creds, 'websocket')).body as { connection: string }).connection;
    for (const csdl of hashes) {
      const hash = ((await call('core.compile', { csdl })).body as { hash: string }).hash;
      expect((await calls.subscribe(creds, connection, hash)).status).toBe(200);
    }
  }
  const result = await engine.command(async (uow) =>
    recordInteractions({ uow, account: await uow.load(accountDecider, accountStream('op')), settings: engine.settings, now: uow.now }, offer(5, T0, T0 + 15 * MINUTE)),
  );
  const all = await store.readAll(0);
  const events = all.filter((e) => e.type === 'InteractionsRecorded').map((e) => e.data);
  const relayed = all.filter((e) => e.type === 'StreamInteractionsMatched').map((e) => e.data);
  return { result, events, relayed };
}

describe('recording a window of rows', () => {
  const cases: [string, string[]][] = [
    ['filters reading only the texts (screened by key)', ['fb.content contains_any "coffee, tea"', 'interaction.content contains "lovely" and not fb.content contains "lego"']],
    ['a text filter with tag rules on other targets', ['tag "women" { fb.author.gender == "female" } return { fb.content contains "coffee" }']],
    ['a filter reading more than the texts (every row built)', ['fb.content contains "coffee"', 'fb.author.gender == "female"']],
    ['a filter matching what has no text of its own', ['not fb.content exists']],
  ];
  for (const [name, filters] of cases) {
    it(`records what the built list records: ${name}`, async () => {
      const rows = await recorded(filters, (seed, from, to) => new FacebookWindow(seed, 60, from, to));
      const list = await recorded(filters, (seed, from, to) => firehoseWindow(seed, 'facebook', 60, from, to));
      expect(rows.result).toEqual(list.result);
      expect(rows.result.recorded).toBeGreaterThan(0);
      expect(rows.events).toEqual(list.events);
    });
  }

  const hashes = ['fb.content contains "coffee"', 'interaction.content contains "lovely"', 'fb.content contains "no such words here"', 'tag "x" { fb.type == "like" } return { fb.content contains "coffee" }'];
  const streamCases: [string, string[], string[], number][] = [
    ['beside recordings', ['fb.content contains_any "coffee, tea"', 'tag "women" { fb.author.gender == "female" } return { fb.content contains "coffee" }'], hashes, 3],
    ['without recordings', [], hashes, 3],
    ['one hash alone', [], ['fb.content contains "coffee"'], 1],
  ];
  for (const [name, filters, subscribed, matching] of streamCases) {
    it(`relays to stream hashes what the built list relays: ${name}`, async () => {
      const rows = await recorded(filters, (seed, from, to) => new FacebookWindow(seed, 60, from, to), subscribed);
      const list = await recorded(filters, (seed, from, to) => firehoseWindow(seed, 'facebook', 60, from, to), subscribed);
      expect(rows.result).toEqual(list.result);
      expect(rows.events).toEqual(list.events);
      expect(rows.relayed).toEqual(list.relayed);
      const matched = rows.relayed.flatMap((e) => (e as { items: { hashes: string[] }[] }).items);
      expect(new Set(matched.flatMap((m) => m.hashes)).size).toBe(matching);
    });
  }
});
