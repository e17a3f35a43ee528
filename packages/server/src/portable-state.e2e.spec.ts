/**
 * Portable state after stream use, through the real server and the `sdp` command: a store whose log holds
 * the stream relay, some of it already dropped (the versions from 2 that `sdp import` once refused), is
 * exported, imported into a fresh store, and a server on it serves what the first one did. On SQLite, and
 * on PostgreSQL when `SDP_TEST_POSTGRES` names a server.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { MATCHED_TYPE, RELAY_STREAM_PREFIX } from '@sdp/core/internal';
import { PostgresEventStore } from '@sdp/store-postgres';
import { account, admin, pause, start, stopAll, WsClient, wsUrl, type Json } from '../test/stream-kit.ts';

afterEach(stopAll);

const dir = mkdtempSync(join(tmpdir(), 'sdp-portable-'));
const pgUrl = process.env.SDP_TEST_POSTGRES;
const schemas = ['from', 'to'].map((side) => `sdp_test_portable_${side}_${process.pid}`);
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  if (!pgUrl) return;
  for (const schema of schemas) {
    const store = await PostgresEventStore.connect(pgUrl, { schema });
    await store.drop();
    await store.close();
  }
});

const inSchema = (schema: string) => `${pgUrl}${pgUrl!.includes('?') ? '&' : '?'}schema=${schema}`;
const STORES: Array<[string, { from: string; to: string } | undefined]> = [
  ['SQLite', { from: `sqlite:${join(dir, 'from.db')}`, to: `sqlite:${join(dir, 'to.db')}` }],
  ['PostgreSQL', pgUrl ? { from: inSchema(schemas[0]!), to: inSchema(schemas[1]!) } : undefined],
];

const sdp = (...args: string[]) =>
  promisify(execFile)(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'cli.ts'), ...args], { cwd: join(import.meta.dirname, '..') });

const lines = (text: string): Json[] => text.split('\n').filter(Boolean).map((l) => JSON.parse(l));

describe.each(STORES)('export and import after stream use on %s', (name, stores) => {
  it.skipIf(!stores)('the relay, pruned or not, does not stand in the way: the imported server serves the same account, usage and streams', async () => {
    const { from, to } = stores!;
    const a = await start({ store: from });
    const ada = await account(a, 'ada', { credits_per_hour: 10_000 });
    const hash = await ada.compile('fb.content contains "coffee"');
    const reader = await WsClient.open(wsUrl(a, `/multi?username=ada&api_key=${ada.key}`));
    reader.send({ action: 'subscribe', hash });
    await reader.until((m) => m.status === 'success');
    await ada.ingest(['coffee at ten']);
    await ada.ingest(['coffee at eleven', 'tea at noon']);
    await reader.until((m) => m.data !== undefined, 2);
    // What the stream host does five minutes on: the relay's first match leaves the log, its last stays.
    expect(await a.store.dropTypes!([MATCHED_TYPE], await a.store.head(), RELAY_STREAM_PREFIX)).toBe(1);
    reader.ws.close();
    for (let i = 0; i < 50 && (await admin(a, 'GET', '/streams')).connections.length > 0; i++) await pause(100);
    // The delivered counts are written as the connection ends, after it has left the list: the export waits for them.
    for (let i = 0; i < 50 && (await a.store.readTypes(['StreamInteractionsDelivered'])).length === 0; i++) await pause(100);
    await admin(a, 'POST', '/clock', { advance_ms: 60_000 });

    const file = join(dir, `${name}.ndjson`);
    await sdp('export', '--store', from, file);
    const exported = lines(readFileSync(file, 'utf8'));
    const relay = exported.filter((e) => e.stream === 'stream-matches:ada');
    expect(relay.map((e) => e.version)).toEqual([2]);

    const { stderr } = await sdp('import', '--store', to, file);
    expect(stderr).toContain(`imported ${exported.length - 1} events from ${file} (left out 1 of the stream relay, which is transient: docs/portable-state.md)`);

    const b = await start({ store: to });
    await admin(b, 'POST', '/clock', { to: a.clock.now() });
    const imported = lines(await (await fetch(`${b.url}/_admin/events`, { headers: { authorization: 'Bearer stream-token' } })).text());
    const portable = (events: Json[]) => events.map(({ position: _, ...e }) => e);
    expect(portable(imported)).toEqual(portable(exported.filter((e) => e.stream !== 'stream-matches:ada')));

    // Read in step on both (the calls charge alike): what the operator and the account see.
    expect(await admin(b, 'GET', '/accounts/ada')).toEqual(await admin(a, 'GET', '/accounts/ada'));
    const usage = async (server: typeof a) => {
      const r = await fetch(`${server.url}/v1.5/usage?period=current`, { headers: { authorization: `ada:${ada.key}` } });
      return { status: r.status, remaining: r.headers.get('x-ratelimit-remaining'), body: (await r.json()) as Json };
    };
    const there = await usage(a);
    expect(there.body.streams[hash]).toMatchObject({ licenses: { interaction: 2 } });
    expect(await usage(b)).toEqual(there);

    // And streams on from there: the import's relay starts afresh at version 1.
    const again = await account(b, 'ada', undefined, ada.key);
    const listener = await WsClient.open(wsUrl(b, `/multi?username=ada&api_key=${ada.key}`));
    listener.send({ action: 'subscribe', hash });
    await listener.until((m) => m.status === 'success');
    await again.ingest(['coffee after the move']);
    const [got] = await listener.until((m) => m.data !== undefined);
    expect(got.data.fb.content).toBe('coffee after the move');
    expect((await b.store.readStream('stream-matches:ada')).map((e) => e.version)).toEqual([1]);
    listener.ws.close();
  }, 60_000);
});
