/**
 * The stream's bounds over real sockets: a consumer that stops reading is cut once its buffer is full
 * while another account's calls stay fast; the 5,001st hash of a connection is refused.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { account, admin, pause, rawSocket, start, stopAll, WsClient, wsUrl, type Json } from '../test/stream-kit.ts';

afterEach(stopAll);

/** Median milliseconds of `n` runs one after another. */
async function median(n: number, run: () => Promise<unknown>): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await run();
    times.push(performance.now() - t);
  }
  return times.sort((a, b) => a - b)[Math.floor(n / 2)]!;
}

describe('stream bounds', () => {
  it('a consumer that stops reading is disconnected once its buffer is full, and another account is served as fast meanwhile', async () => {
    const sdp = await start();
    const ada = await account(sdp, 'ada');
    const bob = await account(sdp, 'bob');
    const hash = await ada.compile('fb.content contains "coffee"');
    const raw = await rawSocket(sdp, `GET /multi?hashes=${hash} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuth: ada:${ada.key}\r\n\r\n`);
    await raw.until((b) => b.includes('Successfully subscribed'));
    const baseline = await median(15, () => bob.call('/validate', { csdl: 'fb.content contains "x"' }));
    // The reader stops; 45 KiB interactions (the text three times) keep coming until the server gives up on it.
    raw.socket.pause();
    const big = 'coffee ' + 'x'.repeat(15_000);
    let cut = false;
    for (let round = 0; round < 20 && !cut; round++) {
      await ada.ingest(Array.from({ length: 50 }, () => big));
      await sdp.streams.caughtUp();
      cut = (await admin(sdp, 'GET', '/streams')).connections.length === 0;
    }
    expect(cut).toBe(true);
    const during = await median(15, () => bob.call('/validate', { csdl: 'fb.content contains "x"' }));
    // Bounded and measured: the stuck consumer costs the other account nothing noticeable.
    expect(during).toBeLessThan(Math.max(50, baseline * 5));
    // The socket is closed by the server (after a grace for a reader that might still take the end).
    raw.socket.resume();
    const deadline = Date.now() + 5000;
    while (!raw.closed && Date.now() < deadline) await pause(50);
    expect(raw.closed).toBe(true);
  }, 60_000);

  it('refuses the 5,001st hash of a connection with a warning, and keeps the 5,000', async () => {
    const sdp = await start();
    const ada = await account(sdp, 'ada', { credits_per_hour: 100_000 });
    const credentials = { username: 'ada', apiKey: ada.key };
    const hashes: string[] = [];
    for (let i = 0; i <= 5000; i++) {
      const r = await sdp.engine.call({ version: '1.5', endpoint: 'core.compile', credentials, params: { csdl: `fb.content contains "w${i}"` }, mediaType: 'application/json' });
      hashes.push((r.body as { hash: string }).hash);
    }
    const client = await WsClient.open(wsUrl(sdp, `/multi?username=ada&api_key=${ada.key}`));
    for (let i = 0; i < 5000; i += 50) {
      for (const hash of hashes.slice(i, i + 50)) client.send({ action: 'subscribe', hash });
      await client.until((m: Json) => m.status === 'success', i + 50);
    }
    const before = await ada.remaining();
    client.send({ action: 'subscribe', hash: hashes[5000] });
    const [warning] = await client.until((m: Json) => m.status === 'warning');
    expect(warning).toEqual({ status: 'warning', message: `The hash ${hashes[5000]} was not subscribed: a connection may subscribe to at most 5000 hashes`, hash: hashes[5000] });
    expect(await ada.remaining()).toBe(before);
    expect((await admin(sdp, 'GET', '/streams')).connections[0].hashes).toHaveLength(5000);
    client.ws.close();
  }, 120_000);
});
