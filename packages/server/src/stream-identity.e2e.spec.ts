/**
 * Keys of identities open streams as they make REST calls (issue 25): the account is charged, and the
 * identity's `total_allowance` narrows what its connections may subscribe, over real sockets.
 */
import { afterEach, describe, expect, it } from 'vitest';

import { account, admin, rawSocket, start, stopAll, WsClient, wsUrl } from '../test/stream-kit.ts';

afterEach(stopAll);

describe("an identity's key on the stream", () => {
  it("opens a WebSocket, subscribes on the account's credits within the identity's total_allowance, receives what matches; past that allowance the subscribe is a warning and a single-hash stream a 429", async () => {
    const sdp = await start();
    const ada = await account(sdp, 'ada');
    const team = (await ada.call('/account/identity', { label: 'team' })).body as { id: string; api_key: string };
    expect((await ada.call(`/account/identity/${team.id}/limit`, { service: 'facebook', total_allowance: 12 })).status).toBe(201);
    const [coffee, tea, cake] = [await ada.compile('fb.content contains "coffee"'), await ada.compile('fb.content contains "tea"'), await ada.compile('fb.content contains "cake"')];
    const before = await ada.remaining();

    const client = await WsClient.open(wsUrl(sdp, `/multi?username=ada&api_key=${team.api_key}`));
    // The handshake reads the figures that bind the identity, as its REST calls do.
    expect([client.upgradeHeaders['x-ratelimit-limit'], client.upgradeHeaders['x-ratelimit-remaining']]).toEqual(['12', '12']);
    client.send({ action: 'subscribe', hash: coffee });
    client.send({ action: 'subscribe', hash: tea });
    client.send({ action: 'subscribe', hash: cake });
    const answers = await client.until((m) => m.status !== undefined, 3);
    expect(answers.map((m) => [m.status, m.hash])).toEqual([['success', coffee], ['success', tea], ['warning', cake]]);
    expect(answers[2].message).toMatch(new RegExp(`^The hash ${cake} was not subscribed: rate limit exceeded`));
    // The account paid for the two subscriptions its identity made.
    expect(await ada.remaining()).toBe(before - 10);

    await ada.ingest(['coffee one', 'cake', 'tea two']);
    const got = await client.until((m) => m.data !== undefined, 2);
    expect(got.map((m) => [m.hash, m.data.fb.content])).toEqual([[coffee, 'coffee one'], [tea, 'tea two']]);

    // A single-hash HTTP stream with the identity's key: its allowance cannot pay, so 429 before anything streams.
    const raw = await rawSocket(sdp, `GET /${cake} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: ada:${team.api_key}\r\n\r\n`);
    await raw.until((b) => b.includes('"status":"failure"'));
    expect(raw.bytes).toMatch(/^HTTP\/1\.1 429 /);
    expect(raw.bytes).toMatch(/\r\nX-RateLimit-Limit: 12\r\n/i);
    raw.socket.destroy();
    // The account's own key is not narrowed by its identity's allowance.
    const own = await WsClient.open(wsUrl(sdp, `/${cake}?username=ada&api_key=${ada.key}`));
    await own.until((m) => m.status === 'success');
    expect(own.upgradeHeaders['x-ratelimit-limit']).toBe('10000');
    own.ws.close();
    client.ws.close();
  });

  it('refuses a wrong key and the key of a deleted identity with 401, and an identity of a denied account with 403', async () => {
    const sdp = await start();
    const ada = await account(sdp, 'ada');
    const hash = await ada.compile('fb.content contains "coffee"');
    const team = (await ada.call('/account/identity', { label: 'team' })).body as { id: string; api_key: string };
    const status = async (key: string) => {
      const r = await fetch(`${sdp.url}/${hash}`, { headers: { authorization: `ada:${key}` } });
      const s = r.status;
      await r.body?.cancel();
      return s;
    };
    expect(await status(team.api_key)).toBe(200);
    expect(await status(`${team.api_key.slice(0, -1)}${team.api_key.endsWith('0') ? '1' : '0'}`)).toBe(401);
    await admin(sdp, 'POST', '/accounts/ada/deny', { reason: 'spam' });
    expect(await status(team.api_key)).toBe(403);
    await admin(sdp, 'POST', '/accounts/ada/allow', {});
    const deleted = await fetch(`${sdp.url}/v1.5/account/identity/${team.id}`, { method: 'DELETE', headers: { authorization: `ada:${ada.key}` } });
    expect(deleted.status).toBe(204);
    expect(await status(team.api_key)).toBe(401);
  });
});
