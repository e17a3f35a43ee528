/**
 * The fetch-style HTTP stream (`StreamHost.handleFetch`): a real `Request` in, a real `Response` out whose
 * body is read as a fetch client reads it, one message per chunk, over the engine the server uses.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createEngine } from '@sdp/core';
import { accountDecider, accountStream } from '@sdp/core/deciders';
import { recordInteractions } from '@sdp/core/internal';
import { MemoryEventStore, seededIds } from '@sdp/core/kernel';
import { createFetchHandler } from '@sdp/http';
import { StreamHost } from './stream-host.ts';

const T0 = Date.parse('2026-03-01T12:00:00Z');
const KEY = 'alice-key-01';
const hosts: StreamHost[] = [];
afterEach(async () => {
  for (const h of hosts.splice(0)) await h.close();
});

async function platform(pkg: Record<string, unknown> = {}) {
  const engine = createEngine({ store: new MemoryEventStore(), clock: { now: () => T0 }, ids: seededIds(7) });
  await engine.openAccount({ username: 'alice', api_key: KEY, package: pkg });
  const host = new StreamHost({ engine, onError: (e) => { throw e; } });
  hosts.push(host);
  const compile = async (csdl: string): Promise<string> =>
    ((await engine.call({ version: '1.5', endpoint: 'core.compile', credentials: { username: 'alice', apiKey: KEY }, params: { csdl } })).body as { hash: string }).hash;
  const ingest = (contents: string[]) =>
    engine.command(async (uow) =>
      recordInteractions(
        { uow, account: await uow.load(accountDecider, accountStream('alice')), settings: engine.settings, now: uow.now },
        contents.map((c, i) => ({ interaction: { id: `${c}-${i}`, content: c, type: 'twitter_gnip' }, fb: { content: c } })),
      ),
    );
  const remaining = async () => (await engine.accountView('alice')).allowances.general.remaining;
  return { engine, host, compile, ingest, remaining };
}

/** Reads a streamed body as a fetch client does: each chunk as it comes, checked to hold one whole message. */
function chunks(response: Response) {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  return {
    async next(): Promise<Record<string, any>> {
      const { value, done } = await reader.read();
      if (done) throw new Error('the stream ended');
      const text = decoder.decode(value);
      expect(text.endsWith('\n') && text.indexOf('\n') === text.length - 1).toBe(true);
      return JSON.parse(text);
    },
    cancel: () => reader.cancel(),
  };
}

const auth = { authorization: `alice:${KEY}` };

describe('the fetch-style HTTP stream', () => {
  it('GET /<hash>: 200 with the rate-limit headers, the acknowledgement, then each matching interaction bare, in order; the allowance falls by 5; cancelling the body ends the connection', async () => {
    const { host, compile, ingest, remaining } = await platform();
    const hash = await compile('fb.content contains "coffee"');
    const before = await remaining();
    const response = (await host.handleFetch(new Request(`http://sdp.test/${hash}`, { headers: auth })))!;
    expect(response.status).toBe(200);
    expect(response.headers.get('x-ratelimit-remaining')).toBe(String(before - 5));
    expect(response.headers.get('content-type')).toBe('application/json');
    const body = chunks(response);
    expect(await body.next()).toEqual({ status: 'success', message: `Successfully subscribed to hash ${hash}`, hash });
    await ingest(['coffee one', 'tea', 'coffee two']);
    expect((await body.next()).fb.content).toBe('coffee one');
    expect((await body.next()).fb.content).toBe('coffee two');
    expect(host.connections()).toEqual([expect.objectContaining({ transport: 'http', hashes: [hash], delivered: 2 })]);
    await body.cancel();
    expect(host.connections()).toEqual([]);
  });

  it('GET /multi?hashes=: interactions wrapped with their hash, an unknown hash a warning and the stream goes on', async () => {
    const { host, compile, ingest } = await platform();
    const coffee = await compile('fb.content contains "coffee"');
    const unknown = 'f'.repeat(32);
    const response = (await host.handleFetch(new Request(`http://sdp.test/multi?hashes=${coffee},${unknown}&username=alice&api_key=${KEY}`)))!;
    expect(response.status).toBe(200);
    const body = chunks(response);
    expect([await body.next(), await body.next()]).toEqual([
      { status: 'success', message: `Successfully subscribed to hash ${coffee}`, hash: coffee },
      { status: 'warning', message: `The hash ${unknown} doesn't exist`, hash: unknown },
    ]);
    await ingest(['coffee now']);
    expect(await body.next()).toEqual({ hash: coffee, data: { interaction: { id: 'coffee now-0', content: 'coffee now', type: 'twitter_gnip' }, fb: { content: 'coffee now' } } });
    await body.cancel();
  });

  it('refuses before anything streams: 401 wrong key, 404 unknown hash, 429 with the headers when the allowance cannot pay; and leaves what is not a stream (undefined)', async () => {
    const { host, compile } = await platform({ credits_per_hour: 7 });
    const hash = await compile('fb.content contains "coffee"');
    const answer = async (path: string, headers: Record<string, string> = auth) => {
      const r = (await host.handleFetch(new Request(`http://sdp.test${path}`, { headers })))!;
      return { status: r.status, body: await r.json(), remaining: r.headers.get('x-ratelimit-remaining') };
    };
    expect(await answer(`/${hash}`, { authorization: 'alice:wrong-key-01' })).toMatchObject({ status: 401, body: { status: 'failure' } });
    expect(await answer(`/${'e'.repeat(32)}`)).toMatchObject({ status: 404, body: { error: `The hash ${'e'.repeat(32)} doesn't exist` } });
    expect(await answer(`/${hash}`)).toMatchObject({ status: 429, remaining: '2' });
    expect(host.connections()).toEqual([]);
    expect(await host.handleFetch(new Request('http://sdp.test/v1.5/validate', { headers: auth }))).toBeUndefined();
    expect(await host.handleFetch(new Request('http://sdp.test/', { headers: auth }))).toBeUndefined();
    expect(await host.handleFetch(new Request(`http://sdp.test/${hash}`, { method: 'POST', headers: auth }))).toBeUndefined();
  });

  it("composes with the API's fetch handler as docs/embedding.md shows: a stream's request streams, the API's is answered by the API", async () => {
    const { engine, host, compile } = await platform();
    const api = createFetchHandler(engine);
    const handle = async (request: Request) => (await host.handleFetch(request)) ?? api(request);
    const hash = await compile('fb.content contains "coffee"');
    const validated = await handle(new Request('http://sdp.test/v1.5/validate', { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ csdl: 'fb.content contains "tea"' }) }));
    expect([validated.status, ((await validated.json()) as { dpu: unknown }).dpu]).toEqual([200, expect.any(String)]);
    const streamed = await handle(new Request(`http://sdp.test/${hash}`, { headers: auth }));
    const body = chunks(streamed);
    expect((await body.next()).status).toBe('success');
    await body.cancel();
  });

  it('a reader that stops taking chunks is warned, then failed and cut: the connection holds its bound and no more', async () => {
    const { engine, compile, ingest } = await platform();
    const host = new StreamHost({ engine, bufferBytes: 4096, onError: (e) => { throw e; } });
    hosts.push(host);
    const hash = await compile('fb.content contains "coffee"');
    const response = (await host.handleFetch(new Request(`http://sdp.test/${hash}`, { headers: auth })))!;
    for (let i = 0; i < 10 && host.connections().length > 0; i++) await ingest(Array.from({ length: 20 }, (_, j) => `coffee ${i} ${j} ${'x'.repeat(40)}`));
    await host.caughtUp();
    expect(host.connections()).toEqual([]);
    const text = await response.text();
    const lines = text.trimEnd().split('\n').map((l) => JSON.parse(l));
    expect(lines.filter((m) => m.status === 'warning')).toHaveLength(1);
    expect(lines[lines.length - 1]).toEqual({ status: 'failure', message: 'You are consuming data too slowly and have been disconnected' });
    expect(text.length).toBeLessThan(4096 + 1024);
  });
});
