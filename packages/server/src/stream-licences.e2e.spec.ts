/**
 * `/usage` over a real server counts the interactions delivered to each subscription (its transport
 * took them), not those matched for it: a consumer cut for slowness pays for what reached its socket.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { account, admin, pause, rawSocket, start, stopAll, WsClient, wsUrl } from '../test/stream-kit.ts';

afterEach(stopAll);

describe('stream licences as /usage reports them', () => {
  it('a consumer cut for slowness is charged for what its socket took, a reader for all it got; /usage sums them by type', async () => {
    const sdp = await start();
    const ada = await account(sdp, 'ada');
    const hash = await ada.compile('fb.content contains "coffee"');
    const reader = await WsClient.open(wsUrl(sdp, `/multi?username=ada&api_key=${ada.key}`));
    reader.send({ action: 'subscribe', hash });
    await reader.until((m) => m.status === 'success');
    const raw = await rawSocket(sdp, `GET /multi?hashes=${hash} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuth: ada:${ada.key}\r\n\r\n`);
    await raw.until((b) => b.includes('Successfully subscribed'));
    // The raw consumer stops reading; 45 KiB interactions keep coming until the server cuts it.
    raw.socket.pause();
    const big = 'coffee ' + 'x'.repeat(15_000);
    let matched = 0;
    for (let round = 0; round < 20 && (await admin(sdp, 'GET', '/streams')).connections.length === 2; round++) {
      await ada.ingest(Array.from({ length: 50 }, () => big));
      matched += 50;
      await sdp.streams.caughtUp();
    }
    expect((await admin(sdp, 'GET', '/streams')).connections).toHaveLength(1);
    await reader.until((m) => m.data !== undefined, matched);
    // What reached the cut consumer: everything its socket still hands over once it reads again.
    raw.socket.resume();
    const deadline = Date.now() + 5000;
    while (!raw.closed && Date.now() < deadline) await pause(50);
    const got = raw.bytes.split('"data":').length - 1;
    reader.ws.close();
    await pause(300);
    // The minute's counts were recorded at each disconnect; the clock moves on so the period holds them.
    await admin(sdp, 'POST', '/clock', { advance_ms: 60_000 });
    await pause(500);
    const licences = (await ada.call('/usage', { period: 'current' })).body.streams[hash].licenses;
    const slowCharged = licences.interaction - matched;
    // Matched while it was subscribed: all of them (what licences counted before). What its socket took
    // is what it read back once it read again (a message the socket took as it was cut may be lost on
    // the way); what waited in its buffer was never written, and is not charged.
    expect(got).toBeGreaterThan(0);
    expect(slowCharged).toBeGreaterThanOrEqual(got);
    expect(slowCharged).toBeLessThanOrEqual(got + 2);
    expect(slowCharged).toBeLessThan(matched - 10);
    expect(licences).toEqual({ interaction: matched + slowCharged, twitter_gnip: matched + slowCharged });
  }, 60_000);
});
