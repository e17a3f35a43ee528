import { createServer as createHttpServer } from 'node:http';
import { connect, createServer as createNetServer, type Server as NetServer, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { handedServer, type HandedServer } from './handed-connections.ts';

let front: NetServer | undefined;
afterEach(() => new Promise<void>((done) => (front ? front.close(() => done()) : done())));

/**
 * A front that reads `headBytes` of each connection, as the primary of --workers does, then hands the
 * socket and what it read to `to` (in one process here: the hand-over itself is node:cluster's).
 */
async function frontFor(to: HandedServer, headBytes: number): Promise<number> {
  front = createNetServer((socket: Socket) => {
    let read = Buffer.alloc(0);
    const onData = (chunk: Buffer) => {
      read = Buffer.concat([read, chunk]);
      if (read.length < headBytes) return;
      socket.off('data', onData);
      socket.pause();
      to.adopt(socket, read);
    };
    socket.on('data', onData);
  });
  await new Promise<void>((done) => front!.listen(0, '127.0.0.1', done));
  return (front!.address() as { port: number }).port;
}

function exchange(port: number, parts: string[], gapMs = 50): Promise<{ text: string; closedAfterMs: number }> {
  return new Promise((done) => {
    const started = Date.now();
    const c = connect(port, '127.0.0.1');
    let text = '';
    c.on('data', (d) => (text += d.toString()));
    // A server that never answers fails the test in seconds, not at the test's time limit.
    const giveUp = setTimeout(() => c.destroy(), 5_000);
    c.on('close', () => {
      clearTimeout(giveUp);
      done({ text, closedAfterMs: Date.now() - started });
    });
    parts.forEach((p, i) => setTimeout(() => c.write(p), i * gapMs));
  });
}

describe('handedServer: a server handed its connections and the bytes already read from them', () => {
  it('answers a request whose head arrived partly before the hand-over and partly after', async () => {
    const server = createHttpServer((req, res) => res.end(`${req.method} ${req.url} ${req.headers['x-part']}`));
    const handed = handedServer(server, { host: '127.0.0.1', port: 1 });
    const port = await frontFor(handed, 10);
    const { text } = await exchange(port, ['GET /one HTTP/1.1\r\nHost: x\r\n', 'X-Part: second\r\nConnection: close\r\n\r\n']);
    expect(text).toMatch(/^HTTP\/1\.1 200/);
    expect(text).toMatch(/GET \/one second$/);
    await handed.close();
  });

  it("holds a slow client to the server's header time limit, as a listening server does", async () => {
    const server = createHttpServer({ headersTimeout: 400, requestTimeout: 600, connectionsCheckingInterval: 50 }, (_req, res) => res.end('ok'));
    const handed = handedServer(server, { host: '127.0.0.1', port: 1 });
    const port = await frontFor(handed, 5);
    const { text, closedAfterMs } = await exchange(port, ['GET / HTTP/1.1\r\nHost: x\r\n']);
    expect(text).toMatch(/^HTTP\/1\.1 408/);
    expect(closedAfterMs).toBeLessThan(3_000);
    await handed.close();
  });

  it('closes once its last handed connection has ended, and takes no more', async () => {
    const server = createHttpServer((_req, res) => setTimeout(() => res.end('late'), 200));
    const handed = handedServer(server, { host: '127.0.0.1', port: 1 });
    const port = await frontFor(handed, 5);
    const answered = exchange(port, ['GET / HTTP/1.1\r\nHost: x\r\nConnection: keep-alive\r\n\r\n']);
    await new Promise((r) => setTimeout(r, 80));
    let closed = false;
    const closing = handed.close().then(() => (closed = true));
    await new Promise((r) => setTimeout(r, 50));
    expect(closed).toBe(false);
    expect((await answered).text).toMatch(/late$/);
    await closing;
    const refused = await exchange(port, ['GET / HTTP/1.1\r\nHost: x\r\n\r\n']);
    expect(refused.text).toBe('');
  });
});
