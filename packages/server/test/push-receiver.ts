import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';

/** One request a receiver got. */
export interface Received {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  /** The body as sent, after gzip when it came compressed. */
  body: string;
  /** What `clockNow` read when it arrived. */
  at: number;
}

/** How the receiver answers: 2xx/5xx statuses, or `hang` (never answer). */
export type ReceiverMode = number | 'hang';

/**
 * A small push receiver for tests and the worked example of docs/push.md: it keeps every request and
 * answers as told.
 */
export interface PushReceiver {
  url: string;
  port: number;
  received: Received[];
  mode: ReceiverMode;
  close(): Promise<void>;
}

export async function startPushReceiver(options: { port?: number; clockNow?: () => number } = {}): Promise<PushReceiver> {
  const hanging: ServerResponse[] = [];
  const receiver = { received: [] as Received[], mode: 200 as ReceiverMode };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      const body = req.headers['content-encoding'] === 'gzip' ? gunzipSync(raw).toString('utf8') : raw.toString('utf8');
      receiver.received.push({ method: req.method!, path: req.url!, headers: req.headers, body, at: options.clockNow?.() ?? Date.now() });
      if (receiver.mode === 'hang') hanging.push(res);
      else res.writeHead(receiver.mode, { 'content-type': 'application/json' }).end('{"ok":true}');
    });
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return Object.assign(receiver, {
    url: `http://127.0.0.1:${port}/receive`,
    port,
    close: async () => {
      for (const r of hanging) r.destroy();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  });
}

/** A loopback port nothing listens on (for "receiver down"). */
export async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const port = (s.address() as AddressInfo).port;
  await new Promise((resolve) => s.close(resolve));
  return port;
}
