/**
 * A connection's actions take effect in the order they came (issue 35: an unsubscribe sent right after
 * its subscribe was dropped, and the hash stayed subscribed, delivered and counted).
 */
import { afterEach, describe, expect, it } from 'vitest';

import { account, admin, pause, start, stopAll, WsClient, wsUrl } from '../test/stream-kit.ts';

afterEach(stopAll);

describe('the order of a connection\'s actions', () => {
  it('subscribe then unsubscribe back to back: nothing is delivered afterwards, and the connection holds no hash', async () => {
    const sdp = await start();
    const ada = await account(sdp, 'ada');
    const hash = await ada.compile('fb.content contains "coffee"');
    const client = await WsClient.open(wsUrl(sdp, `/multi?username=ada&api_key=${ada.key}`));
    client.send({ action: 'subscribe', hash });
    client.send({ action: 'unsubscribe', hash });
    await client.until((m) => m.status === 'success');
    await pause(300);
    expect((await admin(sdp, 'GET', '/streams')).connections).toEqual([expect.objectContaining({ hashes: [] })]);
    await ada.ingest(['coffee after']);
    await pause(300);
    expect(client.messages.filter((m) => m.data)).toEqual([]);
    client.ws.close();
  });

  it('30 rounds of unsubscribe then subscribe end subscribed, each unsubscribe taking effect in its place', async () => {
    const sdp = await start();
    const ada = await account(sdp, 'ada');
    const hash = await ada.compile('fb.content contains "coffee"');
    const before = await ada.remaining();
    const client = await WsClient.open(wsUrl(sdp, `/multi?username=ada&api_key=${ada.key}`));
    client.send({ action: 'subscribe', hash });
    for (let i = 0; i < 30; i++) {
      client.send({ action: 'unsubscribe', hash });
      client.send({ action: 'subscribe', hash });
    }
    await client.until((m) => m.status === 'success', 31);
    await pause(200);
    // Every subscribe after an unsubscribe began anew, so each was charged.
    expect(await ada.remaining()).toBe(before - 31 * 5);
    expect((await admin(sdp, 'GET', '/streams')).connections).toEqual([expect.objectContaining({ hashes: [hash] })]);
    await ada.ingest(['coffee once']);
    const got = await client.until((m) => m.data !== undefined);
    expect(got.map((m) => m.data.fb.content)).toEqual(['coffee once']);
    client.ws.close();
  });
});
