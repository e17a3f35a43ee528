import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Server as NetServer } from 'node:net';
import type { Duplex } from 'node:stream';
import { CURRENT_VERSION, ENDPOINTS } from '@sdp/core';
import { createApiHandler, type CallAnswerer, type HttpOptions } from './api-handler.ts';
import { processBudget, type ConnectionBudget } from './connection-budget.ts';
import { ClientGone, type WireHandler, type WireRequest, type WireResponse } from './wire.ts';

/** The Node face: a `(req, res)` listener for `http.createServer`, over the same core as the fetch face. */
export function createNodeListener(engine: CallAnswerer, options: HttpOptions = {}): (req: IncomingMessage, res: ServerResponse) => void {
  return nodeListenerFor(createApiHandler(engine, options));
}

export function nodeListenerFor(handler: WireHandler): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    // Node's own check (requireHostHeader) answers a bare 400 with no JSON and no X-API-Version; `listen`
    // turns it off and it is answered here as every other refusal is.
    if (req.headers.host === undefined && req.httpVersionMajor === 1 && req.httpVersionMinor >= 1) return answerWithoutHost(req, res);
    const exchange = new NodeExchange(handler, req, res);
    if (exchange.readsFirst()) readNodeBody(req, Infinity, exchange);
    else exchange.answer();
  };
}

/** Connections whose one request lasts as long as they do (`keepRequestOpen`). */
const OPEN_REQUESTS = new WeakSet<Duplex>();

/**
 * Says that the request on `socket` lasts as long as the connection, as the stream's duplex `GET /` does
 * (its body of actions never ends): node:http's whole-request time limit, which it reports through the
 * server's `clientError` (`answerClientError`), then leaves it be. Every other request stays bound by
 * it, at no cost of its own: node:http keeps that time natively for all the connections it parses.
 */
export function keepRequestOpen(socket: Duplex): void {
  OPEN_REQUESTS.add(socket);
}

/**
 * Bodies declared this small (nearly every API call) are read before the handler runs, as a bare
 * node:http server does: the handler then goes from the request to the engine without waiting on a
 * promise for the body. Larger and chunked bodies are read when the handler asks, within its limit.
 */
const READ_FIRST_BYTES = 64 * 1024;

/**
 * One request and its response: the wire request the handler reads, and the answer written back. A class
 * rather than an object of closures: nothing is allocated per request beyond the instance.
 */
class NodeExchange implements WireRequest, BodyWaiter {
  readonly method: string;
  readonly url: string;
  /** The whole body when held before the handler asks (read first, or by a parser in front). */
  body: Uint8Array | undefined;
  /** Why a body read first did not arrive whole (the handler's `readBody` answers with it). */
  private failure: Error | undefined;
  /** An `Expect: 100-continue` request whose body was not asked for (yet). */
  awaitingContinue: boolean;
  constructor(
    private readonly handler: WireHandler,
    private readonly req: IncomingMessage,
    private readonly res: ServerResponse,
  ) {
    this.method = req.method ?? 'GET';
    this.url = req.url ?? '/';
    const headers = req.headers;
    const expect = headers.expect;
    this.awaitingContinue = expect !== undefined && /^100-continue$/i.test(expect);
    const length = headers['content-length'];
    this.body = length === '0' || (length === undefined && headers['transfer-encoding'] === undefined) ? EMPTY : bodyReadBefore(req);
  }

  /** Whether the body is to be read before the handler runs (then `bodyRead` calls it). */
  readsFirst(): boolean {
    if (this.body !== undefined || this.awaitingContinue) return false;
    const length = this.req.headers['content-length'];
    return length !== undefined && Number(length) <= READ_FIRST_BYTES;
  }

  bodyRead(body: Uint8Array | null, error?: Error): void {
    if (error) this.failure = error;
    else this.body = body!;
    this.answer();
  }

  header(name: string): string | undefined {
    // Node keeps only the first of repeated Authorization headers; the handler must see them all to refuse.
    if (name === 'authorization') return allValues(this.req.rawHeaders, name);
    const v = this.req.headers[name];
    return Array.isArray(v) ? v.join(', ') : v;
  }

  readBody(limit: number): Promise<Uint8Array | null> {
    if (this.body !== undefined) return Promise.resolve(this.body.byteLength > limit ? null : this.body);
    if (this.failure !== undefined) return Promise.reject(this.failure);
    const length = this.req.headers['content-length'];
    // Over the limit by its own declaration: refused without inviting the body (no 100 Continue).
    if (length !== undefined && Number(length) > limit) return Promise.resolve(null);
    if (this.awaitingContinue) {
      this.awaitingContinue = false;
      this.res.writeContinue();
    }
    return new Promise((resolve, reject) => readNodeBody(this.req, limit, { bodyRead: (body, error) => (error ? reject(error) : resolve(body)) }));
  }

  /**
   * The request through the handler and its answer back out: written at once when the handler answered
   * with a value (no promise, no turn of the microtask queue), else when its promise settles.
   */
  answer(): void {
    let out: WireResponse | Promise<WireResponse>;
    try {
      out = this.handler(this);
    } catch {
      return this.failed();
    }
    // A handler's thenable (another promise library, another realm's promise) is awaited as a promise is.
    if (!(out instanceof Promise) && typeof (out as Partial<PromiseLike<WireResponse>>).then === 'function') out = Promise.resolve(out);
    if (out instanceof Promise) out.then((o) => this.sendOrFail(o), () => this.failed());
    else this.sendOrFail(out);
  }

  /**
   * An answer node:http refuses to write (a header value with a line break, a status out of range) is a
   * bare 500: thrown at once from the socket's callback it would end the process, and from a promise's
   * reaction it would be an unhandled rejection, which ends it too.
   */
  private sendOrFail(out: WireResponse): void {
    try {
      this.send(out);
    } catch {
      this.failed();
    }
  }

  /** The handler failed where it answers no error of its own: a bare 500. */
  private failed(): void {
    const res = this.res;
    if (!res.headersSent) res.writeHead(500, { 'Content-Type': 'application/json; charset=utf-8' });
    res.end('{"error":"Internal error"}');
  }

  private send(out: WireResponse): void {
    const { req, res } = this;
    if (out.drop) return void req.socket.destroy();
    if (out.stream) return void sendStream(out.status, out.headers, out.stream, res);
    if (out.body !== undefined) out.headers['Content-Length'] = String(Buffer.byteLength(out.body));
    if (this.awaitingContinue) {
      // The client waits for 100 before sending its body and never got it: the connection cannot be reused.
      out.headers.Connection = 'close';
    } else if (!req.complete && out.headers.Connection === 'close') {
      discardThen(req, () => {
        try {
          send(res, out);
        } catch {
          this.failed();
        }
      });
      return;
    }
    send(res, out);
  }
}

/** An HTTP/1.1 request must name its host (RFC 9112 §3.2): 400, and the connection closed after it. */
function answerWithoutHost(req: IncomingMessage, res: ServerResponse): void {
  const body = JSON.stringify({ error: 'Bad Request: an HTTP/1.1 request must carry a Host header' });
  const out: WireResponse = {
    status: 400,
    headers: { 'Content-Type': 'application/json; charset=utf-8', 'X-API-Version': CURRENT_VERSION, 'Content-Length': String(Buffer.byteLength(body)), Connection: 'close' },
    body,
  };
  if (req.complete) send(res, out);
  else discardThen(req, () => send(res, out));
}

/** The methods some endpoint takes, and OPTIONS: what a CONNECT is told the server serves. */
const SERVED_METHODS = [...new Set<string>(ENDPOINTS.flatMap((e) => e.methods)), 'OPTIONS'].join(', ');

/**
 * A CONNECT (a request to tunnel, as to a proxy) is not served: 405 with `Allow`, JSON as any other
 * refusal, then the connection closed (it was the client's to tunnel over). Without a `connect`
 * listener Node closes the socket with no answer at all.
 */
function answerConnect(_req: IncomingMessage, socket: Duplex): void {
  // node:http took its own error listener off the socket when it handed it over: a peer's reset while
  // the answer is written (EPIPE, ECONNRESET) would otherwise be an unhandled error, the process's end.
  socket.on('error', ignoreError);
  if (!socket.writable) return void socket.destroy();
  const body = JSON.stringify({ error: `Method CONNECT not allowed; this server is no proxy. Allowed: ${SERVED_METHODS}` });
  endThenDestroy(
    socket,
    `HTTP/1.1 405 Method Not Allowed\r\nAllow: ${SERVED_METHODS}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nX-API-Version: ${CURRENT_VERSION}\r\nConnection: close\r\n\r\n${body}`,
  );
}

const ignoreError = (): void => {};

/**
 * Time a socket closed with a last answer is given to take it before it is destroyed: node:http ends it
 * and waits for the peer's FIN, which a peer that never reads and never closes does not send, and the
 * descriptor would be held for ever.
 */
export const CLOSE_GRACE_MS = 1_000;

/** The last answer on a socket: ended, then destroyed after `CLOSE_GRACE_MS` whether or not the peer closed its side. */
function endThenDestroy(socket: Duplex, answer: string): void {
  socket.end(answer);
  setTimeout(() => socket.destroy(), CLOSE_GRACE_MS).unref();
}

/** Status line, headers and body in one write (Node joins a string body to the headers it sends first). */
function send(res: ServerResponse, out: WireResponse): void {
  res.writeHead(out.status, out.headers);
  res.end(out.body);
}

/**
 * Writes chunks as they come, waiting for the socket to drain; an error mid-way cuts the connection. Head
 * refused (a header node:http will not write) is a bare 500: no one awaits this, so nothing may escape it.
 */
async function sendStream(status: number, headers: Record<string, string>, stream: AsyncIterable<string>, res: ServerResponse): Promise<void> {
  try {
    res.writeHead(status, headers);
  } catch {
    res.writeHead(500, { 'Content-Type': 'application/json; charset=utf-8' });
    res.end('{"error":"Internal error"}');
    return;
  }
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

/**
 * Every value of a header, joined with `, `, read from the raw list (the header's lowercase name given).
 * Cheaper than `headersDistinct`, which builds lists of every header of the request.
 */
function allValues(raw: string[], name: string): string | undefined {
  let out: string | undefined;
  for (let i = 0; i < raw.length; i += 2) {
    const key = raw[i]!;
    if (key.length === name.length && (key === name || sameLowercase(key, name))) out = out === undefined ? raw[i + 1]! : `${out}, ${raw[i + 1]!}`;
  }
  return out;
}

/** Whether `key` lowercased is `lower` (a header name, ASCII), without building the lowercase string. */
function sameLowercase(key: string, lower: string): boolean {
  for (let i = 0; i < key.length; i++) {
    const c = key.charCodeAt(i);
    if ((c >= 65 && c <= 90 ? c + 32 : c) !== lower.charCodeAt(i)) return false;
  }
  return true;
}

/** What a framework's body parser leaves on the request (Express's `json()`/`urlencoded()`, `rawBody` plugins). */
type ParsedRequest = IncomingMessage & { rawBody?: unknown; body?: unknown; _body?: boolean };

/**
 * The body when a parser in front already consumed the stream: its raw bytes when kept (`req.rawBody`),
 * else the parsed value encoded back in the request's own media type. `undefined`: the stream is unread.
 */
export function bodyReadBefore(req: IncomingMessage): Uint8Array | undefined {
  const r = req as ParsedRequest;
  if (typeof r.rawBody === 'string') return ENCODER.encode(r.rawBody);
  if (r.rawBody instanceof Uint8Array) return r.rawBody;
  // body-parser marks what it parsed (`_body`); any parser has ended the stream.
  if (!(r._body === true || (req.readableEnded && r.body !== undefined))) return undefined;
  const body = r.body;
  if (typeof body === 'string') return ENCODER.encode(body);
  if (body instanceof Uint8Array) return body;
  if (body === undefined || body === null) return EMPTY;
  const type = (req.headers['content-type'] ?? '').toLowerCase();
  if (type.includes('application/x-www-form-urlencoded')) {
    const form = new URLSearchParams();
    for (const [k, v] of Object.entries(body as Record<string, unknown>)) {
      for (const one of Array.isArray(v) ? v : [v]) form.append(k, typeof one === 'string' ? one : JSON.stringify(one));
    }
    return ENCODER.encode(form.toString());
  }
  return ENCODER.encode(JSON.stringify(body));
}

const ENCODER = new TextEncoder();

const EMPTY = new Uint8Array(0);

/** Before a closing answer, at most this much of an unread body is read and discarded, for at most this long. */
export const DISCARD_BYTES = 16 * 1024 * 1024;
export const DISCARD_MS = 10_000;

/**
 * The lingering close: a socket closed with unread bytes sends a reset, and a client still uploading
 * then loses the answer (EPIPE) before reading it. So the rest of the body is read and thrown away
 * first, up to a bound in bytes and time; a body that goes on past it gets the answer and the close.
 */
function discardThen(req: IncomingMessage, answer: () => void): void {
  let discarded = 0;
  let done = false;
  const finish = () => {
    if (done) return;
    done = true;
    clearTimeout(timer);
    req.off('data', onData);
    answer();
  };
  const onData = (chunk: Buffer) => {
    discarded += chunk.length;
    if (discarded > DISCARD_BYTES) finish();
  };
  const timer = setTimeout(finish, DISCARD_MS);
  timer.unref();
  req.on('data', onData);
  req.once('end', finish);
  req.once('close', finish);
  req.resume();
}

/** Told once when a body is read whole (`null`: past the limit), or why it was not. */
interface BodyWaiter {
  bodyRead(body: Uint8Array | null, error?: Error): void;
}

/** Reads a body within `limit` bytes; the listeners are shared by every request and find its read on it. */
function readNodeBody(req: IncomingMessage, limit: number, waiter: BodyWaiter): void {
  (req as Reading)[READING] = new BodyRead(limit, waiter);
  // No 'error' listener: a request emits 'error' only to listeners it has, and always 'close' after.
  req.on('data', onBodyData);
  req.on('end', onBodyEnd);
  req.on('close', onBodyClose);
}

class BodyRead {
  readonly chunks: Buffer[] = [];
  size = 0;
  settled = false;
  constructor(
    readonly limit: number,
    readonly waiter: BodyWaiter,
  ) {}
}

const READING = Symbol('sdp body read');
type Reading = IncomingMessage & { [READING]: BodyRead };

function onBodyData(this: Reading, chunk: Buffer): void {
  const read = this[READING];
  if (read.settled) return;
  read.size += chunk.length;
  // Past the limit nothing more is kept; the rest is discarded by Node once the 413 is sent.
  if (read.size > read.limit) {
    read.settled = true;
    read.chunks.length = 0;
    read.waiter.bodyRead(null);
  } else read.chunks.push(chunk);
}

function onBodyEnd(this: Reading): void {
  const read = this[READING];
  if (read.settled) return;
  read.settled = true;
  const { chunks } = read;
  read.waiter.bodyRead(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, read.size));
}

// 'close' follows 'end' on every request: the error is built only when the body really was cut short.
function onBodyClose(this: Reading): void {
  const read = this[READING];
  if (read.settled) return;
  read.settled = true;
  read.waiter.bodyRead(null, new ClientGone());
}

/**
 * Requests Node cannot parse (a broken request line, headers over 16 KB, a bad chunk) never reach the
 * handler; they too get a JSON error rather than Node's bare text.
 */
/**
 * A node:http server's `clientError` answered as the API answers: 431 for headers too large, 408 for a
 * request not in within the time limits, 400 for anything that does not parse, each as JSON with the
 * connection closed; a request kept open (`keepRequestOpen`) outlives the time limit. `listen` and
 * `createNodeServer` install it; the stream host installs it on a server that has none.
 */
export function answerClientError(error: Error & { code?: string }, socket: Duplex): void {
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT' && OPEN_REQUESTS.has(socket)) return;
  if (!socket.writable || error.code === 'ECONNRESET') {
    socket.destroy();
    return;
  }
  const [status, reason] =
    error.code === 'HPE_HEADER_OVERFLOW' ? [431, 'Request Header Fields Too Large'] : error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? [408, 'Request Timeout'] : [400, 'Bad Request'];
  const why = status === 408 ? 'the request did not arrive whole in time' : 'the request could not be read as HTTP';
  endThenDestroy(socket, rawAnswer(status, reason, `${reason}: ${why}`));
}

/** A whole answer as bytes for the socket, with the connection closed after it. */
function rawAnswer(status: number, reason: string, error: string): string {
  const body = JSON.stringify({ error });
  return `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nX-API-Version: ${CURRENT_VERSION}\r\nConnection: close\r\n\r\n${body}`;
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

/** The time a whole request has to arrive, headers and body (`listen`'s and `createNodeServer`'s `requestTimeoutMs`). */
export const REQUEST_TIMEOUT_MS = 60_000;

/**
 * A node:http server answering with a wire handler, configured as `listen` configures it (time limits,
 * client errors, expectations) but not listening: for a process that is handed its connections
 * (`server.emit('connection', socket)`), as the workers of `sdp serve --workers` are.
 */
export function createNodeServer(handler: WireHandler, options: { requestTimeoutMs?: number } = {}): Server {
  const listener = nodeListenerFor(handler);
  const requestTimeout = options.requestTimeoutMs ?? REQUEST_TIMEOUT_MS;
  // A request without Host reaches the listener, which answers it as the API answers (answerWithoutHost).
  // Time limits are checked every second (node:http's default is every 30 s, so a limit of 60 s could
  // hold a slow sender for 90), or four times within a shorter limit.
  const server = createServer({ requireHostHeader: false, connectionsCheckingInterval: Math.max(10, Math.min(1_000, Math.floor(requestTimeout / 4))) }, listener);
  // With this listener Node no longer sends 100 Continue by itself: the body is invited only when read.
  server.on('checkContinue', listener);
  // Any other expectation (an empty `Expect:` included, which one real client sends) is served as if it
  // were not there: Node's own answer would be a bare 417 with no JSON body and no X-API-Version.
  server.on('checkExpectation', listener);
  server.on('clientError', answerClientError);
  server.on('connect', answerConnect);
  // A stream's duplex request that outlives it is kept open by answerClientError (keepRequestOpen).
  server.requestTimeout = requestTimeout;
  server.headersTimeout = Math.min(30_000, requestTimeout);
  server.keepAliveTimeout = 5_000;
  return server;
}

/**
 * Listens on a port (0 picks a free one) with a wire handler (`createNodeServer`). Headers must arrive
 * within 30 s, a whole request within `requestTimeoutMs` (default `REQUEST_TIMEOUT_MS`): node:http keeps
 * both, and a stream attached to the same server (docs/stream.md) keeps its duplex request open
 * (`keepRequestOpen`).
 */
export async function listen(handler: WireHandler, options: { port?: number; host?: string; requestTimeoutMs?: number; budget?: ConnectionBudget } = {}): Promise<RunningServer> {
  const host = options.host ?? '127.0.0.1';
  const server = createNodeServer(handler, options.requestTimeoutMs !== undefined ? { requestTimeoutMs: options.requestTimeoutMs } : {});
  const { port, url } = await bindPort(server, options.port ?? 8080, host, options.budget ? { budget: options.budget } : {});
  return {
    server,
    port,
    host,
    url,
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

/**
 * Listens `server` (node:http's or node:net's) on `port` (0 picks a free one) and `host`; resolves with the
 * port bound and the URL a client on this machine reaches it at, or rejects as `listen` fails (the port busy).
 * Connections are accepted within `budget` (default: the process's, `processBudget`), in all and per client
 * address; one over it is destroyed before the server's own listeners see it.
 */
export async function bindPort(server: NetServer, port: number, host: string, options: { budget?: ConnectionBudget } = {}): Promise<{ port: number; url: string }> {
  (options.budget ?? processBudget()).guard(server);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const bound = (server.address() as AddressInfo).port;
  return { port: bound, url: localUrl(host, bound) };
}

/** The URL a client on this machine reaches a listener on `host:port` at: a wildcard host as the loopback address. */
export function localUrl(host: string, port: number): string {
  const shown = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
  return `http://${shown}:${port}`;
}

/** An engine served over HTTP in one call. */
export function serve(engine: CallAnswerer, options: HttpOptions & { port?: number; host?: string } = {}): Promise<RunningServer> {
  return listen(createApiHandler(engine, options), options);
}
