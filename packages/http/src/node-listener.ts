import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { CURRENT_VERSION, type Engine } from '@sdp/core';
import { createApiHandler, type HttpOptions } from './api-handler.ts';
import type { WireHandler, WireRequest } from './wire.ts';

/** The Node face: a `(req, res)` listener for `http.createServer`, over the same core as the fetch face. */
export function createNodeListener(engine: Engine, options: HttpOptions = {}): (req: IncomingMessage, res: ServerResponse) => void {
  return nodeListenerFor(createApiHandler(engine, options));
}

export function nodeListenerFor(handler: WireHandler): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    handler(new NodeWireRequest(req)).then(
      (out) => {
        if (out.drop) return void req.socket.destroy();
        if (out.stream) return void sendStream(out.status, out.headers, out.stream, res);
        if (out.body !== undefined) out.headers['Content-Length'] = String(Buffer.byteLength(out.body));
        res.writeHead(out.status, out.headers);
        res.end(out.body);
      },
      () => {
        if (!res.headersSent) res.writeHead(500, { 'Content-Type': 'application/json; charset=utf-8' });
        res.end('{"error":"Internal error"}');
      },
    );
  };
}

/** Writes chunks as they come, waiting for the socket to drain; an error mid-way cuts the connection. */
async function sendStream(status: number, headers: Record<string, string>, stream: AsyncIterable<string>, res: ServerResponse): Promise<void> {
  res.writeHead(status, headers);
  try {
    for await (const chunk of stream) {
      if (res.destroyed) return;
      if (!res.write(chunk)) await new Promise<void>((resolve) => (res.once('drain', resolve), res.once('close', resolve)));
    }
    res.end();
  } catch {
    res.destroy();
  }
}

/** A class rather than an object of closures: nothing is allocated per request beyond the instance. */
class NodeWireRequest implements WireRequest {
  readonly method: string;
  readonly url: string;
  constructor(private readonly req: IncomingMessage) {
    this.method = req.method ?? 'GET';
    this.url = req.url ?? '/';
  }
  header(name: string): string | undefined {
    const v = this.req.headers[name];
    return Array.isArray(v) ? v.join(', ') : v;
  }
  readBody(limit: number): Promise<Uint8Array | null> {
    return readNodeBody(this.req, limit);
  }
}

const EMPTY = new Uint8Array(0);

function readNodeBody(req: IncomingMessage, limit: number): Promise<Uint8Array | null> {
  const length = req.headers['content-length'];
  if (length !== undefined && Number(length) > limit) return Promise.resolve(null);
  if (length === '0' || (length === undefined && req.headers['transfer-encoding'] === undefined)) return Promise.resolve(EMPTY);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const finish = (value: Uint8Array | null, error?: Error) => {
      if (settled) return;
      settled = true;
      req.off('data', onData);
      if (error) reject(error);
      else resolve(value);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      // Past the limit nothing more is kept; the rest is discarded by Node once the 413 is sent.
      if (size > limit) finish(null);
      else chunks.push(chunk);
    };
    req.on('data', onData);
    req.on('end', () => finish(Buffer.concat(chunks, size)));
    req.on('error', (e) => finish(null, e));
    req.on('close', () => finish(null, new Error('request closed before its body ended')));
  });
}

/**
 * Requests Node cannot parse (a broken request line, headers over 16 KB, a bad chunk) never reach the
 * handler; they too get a JSON error rather than Node's bare text.
 */
function answerClientError(error: Error & { code?: string }, socket: Duplex): void {
  if (!socket.writable || error.code === 'ECONNRESET') {
    socket.destroy();
    return;
  }
  const [status, reason] =
    error.code === 'HPE_HEADER_OVERFLOW' ? [431, 'Request Header Fields Too Large'] : error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? [408, 'Request Timeout'] : [400, 'Bad Request'];
  const body = JSON.stringify({ error: `${reason}: the request could not be read as HTTP` });
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nX-API-Version: ${CURRENT_VERSION}\r\nConnection: close\r\n\r\n${body}`,
  );
}

export interface RunningServer {
  server: Server;
  port: number;
  host: string;
  /** `http://127.0.0.1:PORT` (a wildcard host is shown as the loopback address). */
  url: string;
  /** Stops accepting, lets in-flight requests finish, then resolves. */
  close(): Promise<void>;
}

/** Listens on a port (0 picks a free one) with a wire handler. */
export async function listen(handler: WireHandler, options: { port?: number; host?: string } = {}): Promise<RunningServer> {
  const host = options.host ?? '127.0.0.1';
  const server = createServer(nodeListenerFor(handler));
  server.on('clientError', answerClientError);
  server.requestTimeout = 60_000;
  server.headersTimeout = 30_000;
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 8080, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const shown = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
  return {
    server,
    port,
    host,
    url: `http://${shown}:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        // Connections turn idle as their last response goes out; close each as soon as it does.
        const sweep = setInterval(() => server.closeIdleConnections(), 20);
        server.close(() => {
          clearInterval(sweep);
          resolve();
        });
        server.closeIdleConnections();
      }),
  };
}

/** An engine served over HTTP in one call. */
export function serve(engine: Engine, options: HttpOptions & { port?: number; host?: string } = {}): Promise<RunningServer> {
  return listen(createApiHandler(engine, options), options);
}
