/**
 * The duplex `GET /` (actions in a chunked request body that never ends) on the API's own port outlives
 * the request timeout, which still cuts an ordinary request whose body is too slow (slow-loris). The
 * timeout is shortened here to 400 ms; the server's is 60 s.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { account, chunk, pause, rawSocket, settings, type Json } from '../test/stream-kit.ts';
import { startServer, type RunningSdp } from './server.ts';

const TIMEOUT_MS = 400;
let sdp: RunningSdp;
afterAll(async () => {
  await sdp?.close();
});

describe('the request timeout on the API port', () => {
  it('a duplex stream outlives it; a slow ordinary body is still cut with 408, chunked or not', async () => {
    sdp = await startServer(settings({ clock: 'system' }), { requestTimeoutMs: TIMEOUT_MS });
    const ada = await account(sdp, 'ada');
    const coffee = await ada.compile('fb.content contains "coffee"');
    const tea = await ada.compile('fb.content contains "tea"');

    const duplex = await rawSocket(sdp, `GET / HTTP/1.1\r\nHost: x\r\nAuthorization: ada:${ada.key}\r\nTransfer-Encoding: chunked\r\n\r\n`);
    duplex.socket.write(chunk({ action: 'subscribe', hash: coffee }));
    await duplex.until((b) => b.includes(`"hash":"${coffee}"`));
    // Three timeouts later the request (its body still open) is alive and takes actions.
    await pause(3 * TIMEOUT_MS);
    expect(duplex.closed).toBe(false);
    duplex.socket.write(chunk({ action: 'subscribe', hash: tea }));
    await duplex.until((b) => b.includes(`"hash":"${tea}"`));
    await ada.ingest(['coffee please']);
    const got = await duplex.until((b) => b.includes('coffee please'));
    expect(got.startsWith('HTTP/1.1 200')).toBe(true);
    expect(got).not.toContain('408');

    // An API call whose declared body never comes whole: 408 and the connection closed, in about the timeout.
    const started = performance.now();
    const slow = await rawSocket(sdp, `POST /v1.5/compile HTTP/1.1\r\nHost: x\r\nAuthorization: ada:${ada.key}\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 100\r\n\r\ncsdl=fb`);
    const timer = setInterval(() => slow.socket.write('.'), 100);
    try {
      const answer = await slow.until((b) => b.includes('\r\n\r\n{'));
      expect(answer).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
      expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)) as Json).toEqual({ error: 'Request Timeout: the request did not arrive whole in time' });
      const ms = performance.now() - started;
      expect(ms).toBeGreaterThanOrEqual(TIMEOUT_MS - 20);
      expect(ms).toBeLessThan(TIMEOUT_MS * 3);
      await slow.until(() => slow.closed);
    } finally {
      clearInterval(timer);
    }

    // The same for a chunked body that dribbles.
    const dribble = await rawSocket(sdp, `POST /v1.5/compile HTTP/1.1\r\nHost: x\r\nAuthorization: ada:${ada.key}\r\nTransfer-Encoding: chunked\r\n\r\n`);
    const drip = setInterval(() => dribble.socket.write('1\r\nx\r\n'), 100);
    try {
      expect(await dribble.until((b) => b.includes('\r\n\r\n{'))).toMatch(/^HTTP\/1\.1 408 /);
      await dribble.until(() => dribble.closed);
    } finally {
      clearInterval(drip);
    }

    // And a call whose body arrives in time is answered as ever.
    expect((await ada.call('/compile', { csdl: 'fb.content contains "milk"' })).status).toBe(200);
    expect(duplex.closed).toBe(false);
    duplex.socket.destroy();
  }, 20_000);
});
