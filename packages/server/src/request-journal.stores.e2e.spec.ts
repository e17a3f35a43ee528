/**
 * The request journal on every store: the original's Node client (datasift-node 1.5.0, unchanged) makes
 * calls over a socket, and the operator finds each in `GET /_admin/requests` with its charge, the
 * parameters the engine judged and the positions of the events it wrote, which the event log holds.
 * On memory and SQLite, and on PostgreSQL when `SDP_TEST_POSTGRES` names a server.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { PostgresEventStore } from '@sdp/store-postgres';
import { admin, start, stopAll, TOKEN, type Json } from '../test/stream-kit.ts';
import type { JournalEntry } from './request-journal.ts';

const DataSift = createRequire(import.meta.url)('datasift-node') as new (username: string, key: string, urlBase: string, https: boolean) => Json;

afterEach(stopAll);
const dir = mkdtempSync(join(tmpdir(), 'sdp-journal-'));
const pgUrl = process.env.SDP_TEST_POSTGRES;
const schema = `sdp_test_journal_${process.pid}`;
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  if (!pgUrl) return;
  const store = await PostgresEventStore.connect(pgUrl, { schema });
  await store.drop();
  await store.close();
});

const STORES: Array<[string, string | undefined]> = [
  ['memory', 'memory:'],
  ['SQLite', `sqlite:${join(dir, 'journal.db')}`],
  ['PostgreSQL', pgUrl ? `${pgUrl}${pgUrl.includes('?') ? '&' : '?'}schema=${schema}` : undefined],
];

/** A client method's answer: the body, the headers and the status, or the status it failed with. */
type Answer = { status: number; headers: Record<string, string>; body: Json };
const ask = (method: (params: Json, cb: (...a: Json[]) => void) => void, params: Json): Promise<Answer> =>
  new Promise((resolve, reject) =>
    method(params, (err: Json, body: Json, headers: Json, status: number) => {
      if (err && err.statusCode === undefined) return reject(err);
      // The client hands an error answer back whole, as its first argument.
      resolve(err ? { status, headers: err.headers, body: JSON.parse(err.body) } : { status, headers, body });
    }),
  );

describe.each(STORES)('the request journal on %s', (_name, store) => {
  it.skipIf(!store)('finds each call datasift-node made, with its charge, its parameters and the events it wrote', async () => {
    const sdp = await start({ store: store! });
    const { api_key: key } = await admin(sdp, 'POST', '/accounts', { username: 'ada' });
    const ds = new DataSift('ada', key, sdp.url.slice('http://'.length), false);
    await admin(sdp, 'DELETE', '/requests');

    const validate = await ask(ds.validate, { csdl: 'fb.content contains "tea"' });
    const compile = await ask(ds.compile, { csdl: 'fb.content contains "coffee"' });
    const usage = await ask(ds.usage, { period: 'hour' });
    const wrong = await ask(ds.validate, { csdl: 'fb.content contains' });
    expect([validate.status, compile.status, usage.status, wrong.status]).toEqual([200, 200, 200, 400]);

    const { requests } = (await admin(sdp, 'GET', '/requests?username=ada')) as { requests: JournalEntry[] };
    expect(requests.map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual(['POST /v1.5/validate 400', 'GET /v1.5/usage 200', 'POST /v1.5/compile 200', 'POST /v1.5/validate 200']);
    const [wrongEntry, usageEntry, compileEntry, validateEntry] = requests;
    const charged = (a: Answer) => ({ cost: Number(a.headers['x-ratelimit-cost']), remaining: Number(a.headers['x-ratelimit-remaining']) });
    expect(validateEntry).toMatchObject({ version: '1.5', account: 'ada', params: { csdl: 'fb.content contains "tea"' }, paramsCut: false, ...charged(validate) });
    expect(compileEntry).toMatchObject({ params: { csdl: 'fb.content contains "coffee"' }, ...charged(compile) });
    expect(usageEntry).toMatchObject({ params: { period: 'hour' }, ...charged(usage) });
    // A refusal after the charge keeps the charge, and wrote it.
    expect(wrongEntry).toMatchObject({ params: { csdl: 'fb.content contains' }, cost: 5 });
    expect(JSON.stringify(requests)).not.toContain(key);

    // Each call's positions are its own events in the log, one atomic write: its charge, and for the
    // compile the filter.
    const log = (await (await fetch(`${sdp.url}/_admin/events`, { headers: { authorization: `Bearer ${TOKEN}` } })).text()).split('\n').filter(Boolean).map((l) => JSON.parse(l) as { position: number; stream: string; type: string });
    const wrote = (entry: JournalEntry) => {
      expect(entry.positions).not.toBeNull();
      return log.filter((e) => e.position >= entry.positions!.first && e.position <= entry.positions!.last);
    };
    for (const entry of requests) {
      const events = wrote(entry);
      expect(events).toHaveLength(entry.positions!.last - entry.positions!.first + 1);
      expect(events.filter((e) => e.stream === 'credits:ada').map((e) => e.type)).toEqual(['CreditsCharged']);
    }
    expect(new Set(requests.map((r) => r.positions!.first)).size).toBe(4);
    expect(wrote(compileEntry!).map((e) => e.type)).toContain('FilterCompiled');
  });
});
