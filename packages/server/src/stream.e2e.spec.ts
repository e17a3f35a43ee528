/**
 * The stream product over real sockets (issue 25): a plain `ws` client, a raw socket reading the HTTP
 * stream's chunks, and the refusals. What is streamed comes in through a managed source's ingestion.
 */
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';

import { account, admin, pause, rawSocket, chunk, start, stopAll, T0, WsClient, wsUrl } from '../test/stream-kit.ts';

afterEach(stopAll);

describe('the stream over WebSocket', () => {
  it('subscribes to a compiled hash, receives what ingestion then adds, ticks as the clock moves, unsubscribes; the allowance falls by 5', async () => {
    const sdp = await start();
    const ada = await account(sdp, 'ada');
    const hash = await ada.compile('fb.content contains "coffee"');
    await ada.ingest(['coffee before']);
    const before = await ada.remaining();
    const client = await WsClient.open(wsUrl(sdp, `/multi?username=ada&api_key=${ada.key}`));
    // The handshake's 101 carries the allowance's figures, as every API answer does.
    expect(client.upgradeHeaders['x-ratelimit-remaining']).toBe(String(before));
    expect(client.upgradeHeaders['x-ratelimit-limit']).toBe('10000');
    // Opening charges nothing, and its cost says so (a subscription's 5 are charged when it begins).
    expect(client.upgradeHeaders['x-ratelimit-cost']).toBe('0');
    client.send({ action: 'subscribe', hash });
    await client.until((m) => m.status === 'success');
    expect(client.messages[0]).toEqual({ status: 'success', message: `Successfully subscribed to hash ${hash}`, hash });
    expect(await ada.remaining()).toBe(before - 5);
    // A repeated subscribe is acknowledged and charges nothing.
    client.send({ action: 'subscribe', hash });
    await client.until((m) => m.status === 'success', 2);
    expect(await ada.remaining()).toBe(before - 5);

    await ada.ingest(['coffee one', 'tea', 'coffee two']);
    const got = await client.until((m) => m.data !== undefined, 2);
    expect(got.map((m) => [m.hash, m.data.fb.content])).toEqual([[hash, 'coffee one'], [hash, 'coffee two']]);
    expect(client.messages.some((m) => m.data?.fb.content === 'coffee before')).toBe(false);

    await admin(sdp, 'POST', '/clock', { advance_ms: 30_000 });
    const [tick] = await client.until((m) => m.tick !== undefined);
    expect(tick).toEqual({ tick: Math.floor((T0 + 30_000) / 1000), status: 'connected', message: 'Waiting for data' });

    const listed = (await admin(sdp, 'GET', '/streams')).connections;
    expect(listed).toEqual([expect.objectContaining({ username: 'ada', transport: 'websocket', hashes: [hash], delivered: 2 })]);

    client.send({ action: 'unsubscribe', hash });
    await pause(200);
    await ada.ingest(['coffee three']);
    await pause(300);
    expect(client.messages.filter((m) => m.data).length).toBe(2);
    client.ws.close();
    await pause(200);
    expect((await admin(sdp, 'GET', '/streams')).connections).toEqual([]);
    const usage = (await ada.call('/usage', { period: 'current' })).body;
    expect(usage.streams[hash]).toEqual({ seconds: 30, licenses: { interaction: 2, twitter_gnip: 2 } });
  });
});

describe('the HTTP stream, byte for byte', () => {
  it('GET /<hash> answers 200 chunked with the rate-limit headers, then one chunk per message: <json>\\n, interactions bare', async () => {
    const sdp = await start();
    const ada = await account(sdp, 'ada');
    const hash = await ada.compile('fb.content contains "coffee"');
    const before = await ada.remaining();
    const raw = await rawSocket(sdp, `GET /${hash}?statuses=true HTTP/1.1\r\nHost: 127.0.0.1\r\nAuth: ada:${ada.key}\r\nAccept: */*\r\n\r\n`);
    const ack = chunk({ status: 'success', message: `Successfully subscribed to hash ${hash}`, hash });
    await raw.until((b) => b.includes(ack));
    const [head, body] = raw.bytes.split('\r\n\r\n');
    expect(head).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(head).toMatch(/\r\nTransfer-Encoding: chunked(\r\n|$)/i);
    expect(head).toMatch(/\r\nX-RateLimit-Cost: 5(\r\n|$)/i);
    expect(head).toMatch(new RegExp(`\r\nX-RateLimit-Remaining: ${before - 5}(\r\n|$)`, 'i'));
    expect(`${body}\r\n\r\n`.startsWith(ack)).toBe(true);
    await ada.ingest(['coffee one']);
    const interaction = { interaction: { id: 'coffee one-0', content: 'coffee one', type: 'twitter_gnip' }, fb: { content: 'coffee one' } };
    await raw.until((b) => b.endsWith(ack + chunk(interaction)));
    raw.socket.destroy();
  });

  it('GET /multi?hashes= wraps each interaction with its hash, and warns of an unknown hash and goes on', async () => {
    const sdp = await start();
    const ada = await account(sdp, 'ada');
    const hash = await ada.compile('fb.content contains "coffee"');
    const unknown = 'f'.repeat(32);
    const raw = await rawSocket(sdp, `GET /multi?hashes=${hash},${unknown} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: ada:${ada.key}\r\n\r\n`);
    await raw.until((b) => b.includes(chunk({ status: 'warning', message: `The hash ${unknown} doesn't exist`, hash: unknown })));
    await ada.ingest(['coffee one']);
    await raw.until((b) => b.includes(`{"hash":"${hash}","data":{"interaction":`));
    raw.socket.destroy();
  });
});

describe('stream refusals', () => {
  it('401 for a wrong key and 403 for a denied account, before anything streams, on HTTP and WebSocket', async () => {
    const sdp = await start();
    const ada = await account(sdp, 'ada');
    const hash = await ada.compile('fb.content contains "coffee"');
    const wrong = await fetch(`${sdp.url}/${hash}`, { headers: { authorization: 'ada:0000000000000000' } });
    expect(wrong.status).toBe(401);
    expect(await wrong.json()).toMatchObject({ error: expect.any(String), message: expect.any(String) });
    const none = await fetch(`${sdp.url}/multi?hashes=${hash}`);
    expect(none.status).toBe(401);
    expect(((await none.json()) as { message: string }).message).toBe('A username and API key are both required');
    await expect(WsClient.open(wsUrl(sdp, `/multi?username=ada&api_key=nope-nope-nope`))).rejects.toThrow(/401/);
    await admin(sdp, 'POST', '/accounts/ada/deny', { reason: 'spam' });
    expect((await fetch(`${sdp.url}/${hash}`, { headers: { auth: `ada:${ada.key}` } })).status).toBe(403);
    await expect(WsClient.open(wsUrl(sdp, `/?username=ada&api_key=${ada.key}`))).rejects.toThrow(/403/);
  });

  it('an unknown hash: 404 with error and message on a single-hash HTTP stream (and WebSocket), a warning on a multi connection', async () => {
    const sdp = await start();
    const ada = await account(sdp, 'ada');
    const unknown = 'e'.repeat(32);
    const r = await fetch(`${sdp.url}/${unknown}`, { headers: { auth: `ada:${ada.key}` } });
    expect(r.status).toBe(404);
    expect(await r.json()).toEqual({ error: `The hash ${unknown} doesn't exist`, message: `The hash ${unknown} doesn't exist`, status: 'failure' });
    await expect(WsClient.open(wsUrl(sdp, `/${unknown}?username=ada&api_key=${ada.key}`))).rejects.toThrow(/404/);
    const client = await WsClient.open(wsUrl(sdp, `/multi`), { authorization: `ada:${ada.key}` });
    client.send({ action: 'subscribe', hash: unknown });
    client.ws.send('{"action":"subscribe"');
    client.ws.send('{"action":"dance","hash":"x"}');
    const warnings = await client.until((m) => m.status === 'warning', 3);
    expect(warnings[0]).toEqual({ status: 'warning', message: `The hash ${unknown} doesn't exist`, hash: unknown });
    expect(warnings.slice(1).map((w) => w.message)).toEqual([expect.stringMatching(/^The JSON received from the message was invalid/), expect.stringMatching(/^The JSON received from the message was invalid/)]);
    expect(client.ws.readyState).toBe(WebSocket.OPEN);
    // Nothing was charged for refused subscriptions.
    expect(await ada.remaining()).toBe(10_000 - 30);
    client.ws.close();
  });

  it('an allowance that cannot pay: 429 with the rate-limit headers on HTTP, a warning on a multi connection; nothing subscribed', async () => {
    const sdp = await start();
    const ada = await account(sdp, 'ada', { credits_per_hour: 42 });
    const hash = await ada.compile('fb.content contains "coffee"');
    const other = await ada.compile('fb.content contains "tea"');
    expect(await ada.remaining()).toBe(2);
    const r = await fetch(`${sdp.url}/${hash}`, { headers: { auth: `ada:${ada.key}` } });
    expect(r.status).toBe(429);
    expect(r.headers.get('x-ratelimit-remaining')).toBe('2');
    expect(r.headers.get('x-ratelimit-cost')).toBe('5');
    const client = await WsClient.open(wsUrl(sdp, `/?username=ada&api_key=${ada.key}`));
    client.send({ action: 'subscribe', hash: other });
    const [warning] = await client.until((m) => m.status === 'warning');
    expect(warning.message).toMatch(new RegExp(`^The hash ${other} was not subscribed: rate limit exceeded`));
    expect((await admin(sdp, 'GET', '/streams')).connections[0].hashes).toEqual([]);
    client.ws.close();
  });

  it('connections per account stop at the package field stream_connections (429 before streaming)', async () => {
    const sdp = await start();
    const ada = await account(sdp, 'ada', { stream_connections: 1 });
    const first = await WsClient.open(wsUrl(sdp, `/?username=ada&api_key=${ada.key}`));
    await expect(WsClient.open(wsUrl(sdp, `/?username=ada&api_key=${ada.key}`))).rejects.toThrow(/429/);
    first.ws.close();
    await pause(200);
    (await WsClient.open(wsUrl(sdp, `/?username=ada&api_key=${ada.key}`))).ws.close();
  });
});

describe('--stream-port', () => {
  it('serves the stream alone on a second port, beside the API port that serves it too', async () => {
    const sdp = await start({ streamPort: 0 });
    expect(sdp.streamUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const ada = await account(sdp, 'ada');
    const hash = await ada.compile('fb.content contains "coffee"');
    const client = await WsClient.open(`${sdp.streamUrl!.replace(/^http/, 'ws')}/${hash}?username=ada&api_key=${ada.key}`);
    await client.until((m) => m.status === 'success');
    await ada.ingest(['coffee one']);
    const [got] = await client.until((m) => m.data !== undefined);
    expect(got).toMatchObject({ hash, data: { fb: { content: 'coffee one' } } });
    const api = await fetch(`${sdp.streamUrl}/v1.5/balance`, { method: 'POST', headers: { authorization: `ada:${ada.key}` } });
    expect(api.status).toBe(404);
    client.ws.close();
  });
});

describe('the synthetic firehose', () => {
  it('what the account\'s firehose feeds as the clock moves reaches its subscriptions, nothing from before', async () => {
    const sdp = await start();
    const ada = await account(sdp, 'ada');
    // Every synthetic facebook interaction has a type: this filter matches them all.
    const hash = await ada.compile('interaction.type == "facebook"');
    await admin(sdp, 'POST', '/accounts/ada/firehose', { service: 'facebook', perMinute: 6, seed: 3, backfillMinutes: 5 });
    const client = await WsClient.open(wsUrl(sdp, `/?username=ada&api_key=${ada.key}`));
    client.send({ action: 'subscribe', hash });
    await client.until((m) => m.status === 'success');
    await pause(200);
    expect(client.messages.filter((m) => m.data)).toEqual([]);
    await admin(sdp, 'POST', '/clock', { advance_ms: 60_000 });
    const got = await client.until((m) => m.data !== undefined, 6);
    expect(got.every((m) => m.hash === hash && m.data.interaction.type === 'facebook')).toBe(true);
    client.ws.close();
  });
});
