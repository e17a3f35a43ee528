import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import {
  CreditsExhausted,
  DEFAULT_LAPSE_MS,
  DomainError,
  HOST_LOST,
  LostHosts,
  accountOfStream,
  asPlatformEvent,
  licenceTypeOf,
  MATCHED_TYPE,
  MATCHES_KEPT_MS,
  MAX_HASHES_PER_CONNECTION,
  StreamGate,
  type Engine,
  type RateFigures,
  type StreamHosting,
  type StreamTransport,
} from '@sdp/core';
import type { Clock, StoredEvent } from '@sdp/core/kernel';
import { ActionSplitter, readAction, type StreamAction } from './action-splitter.ts';
import { DeliveryTally } from './delivery-tally.ts';
import { LiveConnection, type ConnectionView, type Delivered, type LocalSubscription, type MessageSink } from './live-connection.ts';
import { MatchFeed } from './match-feed.ts';
import { messageText, pacedChunks, rateHeaders, refusalResponse, refuseHttp, refuseUpgrade, refuseUpgradeWith, streamedBody } from './stream-answers.ts';
import { HASH, fetchStreamTarget, streamTarget, type StreamTarget } from './stream-target.ts';
import { answerClientError, keepRequestOpen } from '@sdp/http';
import {
  closingFailure,
  invalidActionWarning,
  keepAliveFailure,
  rateLimitWarning,
  refusedWarning,
  slowFailure,
  stopFailure,
  subscribedMessage,
  tickMessage,
  unknownHashWarning,
  relayNoticeMessages,
} from './stream-messages.ts';

export interface StreamHostOptions {
  engine: Engine;
  /** The clock ticks are measured on (the engine's by default): on a manual clock they come as it moves. */
  clock?: Clock;
  /** Bytes a connection may leave unread before it is warned (half) and cut (all). Default 1 MiB. */
  bufferBytes?: number;
  /** Clock time without a message before a tick. Default 30 s. */
  tickMs?: number;
  /** Actions of one connection waiting their turn; more are refused with a warning. Default 64. */
  maxPendingActions?: number;
  /**
   * At start, end the connections the log still holds open (a process that stopped without closing
   * them, a crash): only for the store's sole server, since with several each holds its own. Their
   * subscriptions would otherwise be matched for, and count against `stream_connections`, for ever.
   */
  endLeftOpen?: boolean;
  /** Told of unexpected failures (a store away while a connection closes, say). */
  onError?: (error: unknown) => void;
  /**
   * Where the store keeps liveness records (SQLite, PostgreSQL): how often this process renews its own
   * (default 1 s, real time), after how long of silence another is taken for dead (default 5 s, the
   * store's time), and how often it looks for dead ones (default: the lapse). Each connection records
   * this process as its host; a dead host's connections are ended by whoever finds it. `false`: none of
   * it, for the store's sole server (nobody else to find it dead; `endLeftOpen` covers its restart).
   */
  liveness?: false | { renewMs?: number; lapseMs?: number; sweepMs?: number };
  /**
   * Real time an account's delivered counts are held at most before they are recorded (they are also
   * recorded when a clock minute they hold ends, at an unsubscribe and at a disconnect). Default 60 s:
   * what a crash of this process loses at most.
   */
  deliveriesHeldMs?: number;
  /** Real time matched interactions stay in the log before this host drops them. Default `MATCHES_KEPT_MS`. */
  matchesKeptMs?: number;
  /** Real time, for the bounds above (the clock port may be a manual one). Default `Date.now`. */
  realNow?: () => number;
}

/** Matches held for one subscription while it is being decided, at most. */
const MAX_HELD = 10_000;
/** Real time between looks for connections owed a tick (and counts owed a write). */
const TICK_CHECK_MS = 250;
/** Real time between looks at the log's head, for dropping the matches older than they are kept. */
const DROP_CHECK_MS = 30_000;

/**
 * The stream product on a node:http server: WebSocket upgrades at `/`, `/multi` and `/<hash>`, HTTP
 * streams at `GET /<hash>` and `GET /multi?hashes=`, and the duplex `GET /` whose chunked request body
 * carries actions. Decisions (who may stream, what a subscription costs, the limits) are the core's
 * `StreamGate`; this holds the sockets, follows the log for matches and writes them out.
 */
export class StreamHost {
  private readonly engine: Engine;
  private readonly clock: Clock;
  private readonly gate: StreamGate;
  private readonly bufferBytes: number;
  private readonly tickMs: number;
  private readonly maxPending: number;
  private readonly onError: (error: unknown) => void;
  private readonly byUser = new Map<string, Set<LiveConnection>>();
  private readonly byId = new Map<string, LiveConnection>();
  private readonly feed: MatchFeed;
  private readonly wss = new WebSocketServer({ noServer: true, maxPayload: 64 * 1024, perMessageDeflate: false });
  private ticker: NodeJS.Timeout | undefined;
  private started: Promise<void> | undefined;
  private closing = false;
  private readonly endLeftOpen: boolean;
  /** This process as a host of connections, where the store keeps liveness records. */
  private readonly hosting: StreamHosting | undefined;
  private readonly lostHosts: LostHosts | undefined;
  private readonly renewMs: number;
  private readonly sweepMs: number;
  private renewer: NodeJS.Timeout | undefined;
  private sweeper: NodeJS.Timeout | undefined;
  private sweeping = false;
  /** Since when (real time) this host's renewals have gone through without a break. */
  private renewedSince: number | undefined;
  /** Rate figures for the 101 of an upgrade in progress (the `headers` event sees only the request). */
  private readonly upgradeRates = new WeakMap<IncomingMessage, RateFigures>();
  private readonly tally = new DeliveryTally();
  /** Accounts whose counts are being written now (one write at a time each). */
  private readonly recording = new Map<string, Promise<void>>();
  private readonly deliveriesHeldMs: number;
  private readonly matchesKeptMs: number;
  private readonly realNow: () => number;
  /** The log's head as seen at real times, oldest first: what is older than `matchesKeptMs` is dropped up to it. */
  private readonly heads: { at: number; head: number }[] = [];
  private lastHeadCheck = -Infinity;
  private dropping = false;

  constructor(options: StreamHostOptions) {
    this.engine = options.engine;
    this.clock = options.clock ?? options.engine.clock;
    const liveness = options.liveness === false ? undefined : options.engine.store.liveness;
    const pace = options.liveness || {};
    const lapseMs = pace.lapseMs ?? DEFAULT_LAPSE_MS;
    this.renewMs = pace.renewMs ?? 1_000;
    this.sweepMs = pace.sweepMs ?? lapseMs;
    this.hosting = liveness && { host: options.engine.ids.hex(16), liveness, lapseMs, mayJudge: () => this.renewedSince !== undefined && performance.now() - this.renewedSince >= lapseMs };
    this.lostHosts = this.hosting && new LostHosts(options.engine, this.hosting);
    this.gate = new StreamGate(options.engine, this.hosting);
    this.bufferBytes = options.bufferBytes ?? 1024 * 1024;
    this.tickMs = options.tickMs ?? 30_000;
    this.maxPending = options.maxPendingActions ?? 64;
    this.endLeftOpen = options.endLeftOpen ?? false;
    this.onError = options.onError ?? ((e) => console.error('stream:', e));
    this.deliveriesHeldMs = options.deliveriesHeldMs ?? 60_000;
    this.matchesKeptMs = options.matchesKeptMs ?? MATCHES_KEPT_MS;
    this.realNow = options.realNow ?? Date.now;
    this.feed = new MatchFeed(this.engine.store, (e) => this.deliver(e), this.onError);
    this.wss.on('headers', (headers, req) => {
      const rate = this.upgradeRates.get(req);
      if (rate) for (const [name, value] of Object.entries(rateHeaders(rate))) headers.push(`${name}: ${value}`);
    });
  }

  /** Starts following the log (once); `attach` and the handlers call it themselves. */
  start(): Promise<void> {
    this.started ??= (async () => {
      if (this.endLeftOpen) await this.endConnectionsLeftOpen();
      await this.keepAlive();
      // Where the feed starts: the log's head now. It reads only while a connection is registered.
      this.feed.start();
      await this.feed.caughtUp();
      if (this.byUser.size === 0) this.feed.pause();
      this.ticker = setInterval(() => this.tick(), TICK_CHECK_MS);
      this.ticker.unref();
    })();
    return this.started;
  }

  /**
   * Serves the stream on `server` beside what it serves already: stream requests and upgrades go here,
   * every other request to the listeners it had.
   */
  attach(server: Server): this {
    void this.start();
    const previous = server.listeners('request') as ((req: IncomingMessage, res: ServerResponse) => void)[];
    server.removeAllListeners('request');
    server.on('request', (req: IncomingMessage, res: ServerResponse) => {
      if (this.handleRequest(req, res)) return;
      for (const listener of previous) listener.call(server, req, res);
    });
    // A server of the embedder's own, with no answer to client errors of its own: node:http's whole-request
    // time limit would cut the duplex stream; this answer lets it be (keepRequestOpen) and answers the rest.
    if (server.listenerCount('clientError') === 0) server.on('clientError', answerClientError);
    server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
      if (!this.handleUpgrade(req, socket, head)) refuseUpgrade(socket, 404, 'Not a stream path: use /, /multi or /<hash>');
    });
    return this;
  }

  /**
   * Renews this process's liveness record now and every `renewMs` (real time), and sweeps for dead hosts
   * every `sweepMs`: one small write and one indexed read, neither an event.
   */
  private async keepAlive(): Promise<void> {
    const hosting = this.hosting;
    if (!hosting) return;
    const renew = async () => {
      try {
        await hosting.liveness.renew(hosting.host, this.clock.now());
        this.renewedSince ??= performance.now();
      } catch (error) {
        this.renewedSince = undefined;
        throw error;
      }
    };
    await renew();
    this.renewer = setInterval(() => void renew().catch((e) => this.quietly(e)), this.renewMs);
    this.renewer.unref();
    this.sweeper = setInterval(() => void this.sweep(), this.sweepMs);
    this.sweeper.unref();
  }

  /**
   * Ends what dead hosts held (bounded per sweep; one sweep at a time); how many connections it ended.
   * `known`: only that host, known dead.
   */
  async sweep(known?: string): Promise<number> {
    if (!this.lostHosts || this.closing) return 0;
    // A known death is swept at once, beside a periodic sweep that may be running (both are bounded).
    if (known !== undefined) return this.lostHosts.sweep(undefined, known).catch((e) => (this.quietly(e), 0));
    if (this.sweeping) return 0;
    this.sweeping = true;
    try {
      return await this.lostHosts.sweep();
    } catch (error) {
      this.quietly(error);
      return 0;
    } finally {
      this.sweeping = false;
    }
  }

  /**
   * `host` is known dead (the primary of `--workers` saw its process exit): its connections are ended now
   * rather than after its record lapses. How many ended.
   */
  async hostGone(host: string): Promise<number> {
    if (!this.hosting || host === this.hosting.host) return 0;
    await this.hosting.liveness.expire(host).catch((e) => this.quietly(e));
    return this.sweep(host);
  }

  /** This process's id as a host of connections (recorded on each), where the store keeps liveness records. */
  get host(): string | undefined {
    return this.hosting?.host;
  }

  /** Reads only the connect and disconnect events (start-up never reads the whole log). */
  private async endConnectionsLeftOpen(): Promise<void> {
    const open = new Map<string, { username: string; connection: string }>();
    for (let after = 0; ; ) {
      const page = await this.engine.store.readTypes(['StreamConnected', 'StreamDisconnected'], after, 1_000);
      if (page.length === 0) break;
      for (const stored of page) {
        const e = asPlatformEvent(stored);
        const username = accountOfStream(stored.stream);
        if (username === undefined || (e?.type !== 'StreamConnected' && e?.type !== 'StreamDisconnected')) continue;
        const connection = e.data.connection;
        const key = `${username}\n${connection}`;
        if (e.type === 'StreamConnected') open.set(key, { username, connection });
        else open.delete(key);
      }
      after = page[page.length - 1]!.position;
    }
    for (const { username, connection } of open.values()) await this.gate.close(username, connection, 'server restarted').catch((e) => this.quietly(e));
  }

  /** Takes the request if it is a stream's (`true`), else leaves it untouched (`false`). */
  handleRequest(req: IncomingMessage, res: ServerResponse): boolean {
    const target = streamTarget(req, false);
    if (!target || this.closing) return false;
    void this.serveHttp(req, res, target).catch((error) => this.failed(error, res));
    return true;
  }

  /**
   * The HTTP streams (`GET /<hash>`, `GET /multi?hashes=`) for runtimes that serve fetch `Request`s: a
   * `Response` whose body streams the messages, one per chunk, or a refusal; `undefined` when the request
   * is not a stream's (the API's, then). The duplex `GET /` and WebSockets need `attach`.
   */
  async handleFetch(request: Request): Promise<Response | undefined> {
    const target = fetchStreamTarget(request);
    if (!target || this.closing) return undefined;
    try {
      return await this.serveFetch(request, target);
    } catch (error) {
      if (error instanceof DomainError) return refusalResponse(error);
      this.onError(error);
      return refusalResponse(new DomainError(500, 'There was a problem starting your connection. Please reconnect.'));
    }
  }

  /** Takes the upgrade if it is a stream's (`true`). */
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): boolean {
    const target = /websocket/i.test(req.headers.upgrade ?? '') ? streamTarget(req, true) : undefined;
    if (!target || this.closing) return false;
    void this.serveWebSocket(req, socket, head, target).catch((error) => {
      this.onError(error);
      refuseUpgrade(socket, 500, 'There was a problem starting your connection. Please reconnect.');
    });
    return true;
  }

  /** The connections open on this process (`GET /_admin/streams`). */
  connections(): ConnectionView[] {
    return [...this.byId.values()].map((c) => c.view());
  }

  /** Ends every connection (each told with a `failure`) and stops following the log. */
  async close(): Promise<void> {
    this.closing = true;
    this.feed.stop();
    if (this.ticker) clearInterval(this.ticker);
    clearInterval(this.renewer);
    clearInterval(this.sweeper);
    const now = this.clock.now();
    await Promise.all([...this.byId.values()].map((c) => {
      c.send(closingFailure(), now);
      return this.end(c, 'server closing');
    }));
    // A turn for the transports to confirm what they took, then every count left is recorded.
    await new Promise((resolve) => setImmediate(resolve));
    await Promise.all(this.tally.accounts().map((username) => this.recordDelivered(username)));
    // Its connections ended, nothing is left for a sweep to find.
    if (this.hosting) await this.hosting.liveness.forget(this.hosting.host).catch((e) => this.quietly(e));
    this.wss.close();
  }

  /**
   * The operator's reset: every connection ends (its subscriptions went with the store), then
   * `emptyStore` runs; the feed follows the emptied log from its start.
   */
  async reset(emptyStore: () => Promise<void>): Promise<void> {
    const now = this.clock.now();
    for (const c of [...this.byId.values()]) {
      c.send(closingFailure(), now);
      c.closed = true;
      this.forget(c);
      c.closeSink();
    }
    this.tally.clear();
    this.heads.length = 0;
    await emptyStore();
    // The reset emptied the liveness records with the log.
    if (this.hosting) await this.hosting.liveness.renew(this.hosting.host, this.clock.now()).catch((e) => this.quietly(e));
  }

  /** Resolves once every match committed before the call has been delivered. */
  caughtUp(): Promise<void> {
    return this.feed.caughtUp();
  }

  // ---- transports ----

  private async serveHttp(req: IncomingMessage, res: ServerResponse, target: StreamTarget): Promise<void> {
    await this.start();
    let account, identityId: string | null;
    try {
      ({ account, identityId } = await this.gate.authenticate(target.credentials));
    } catch (error) {
      return refuseHttp(res, error);
    }
    const transport: StreamTransport = target.kind === 'duplex' ? 'http-duplex' : 'http';
    let id: string;
    try {
      id = await this.gate.open(account.username, transport);
    } catch (error) {
      return refuseHttp(res, error);
    }
    const sink = pacedChunks(res);
    const conn = new LiveConnection(id, account.username, transport, target.kind !== 'single', this.clock.now(), sink, this.bufferBytes, (c) => void this.end(c, 'slow consumer'));
    conn.identityId = identityId;
    let rate: RateFigures;
    try {
      rate = await this.opening(conn, target);
    } catch (error) {
      return refuseHttp(res, error);
    }
    if (res.destroyed || req.socket.destroyed) return void this.end(conn, 'client gone');
    res.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'no-cache', 'Transfer-Encoding': 'chunked', ...rateHeaders(rate) });
    res.flushHeaders();
    this.register(conn);
    res.on('close', () => void this.end(conn, 'client closed'));
    const now = this.begin(conn, target);
    if (target.kind === 'multi' && target.hashes.length === 0) conn.send(tickMessage(now), now);
    if (target.kind === 'duplex') {
      // Its body of actions lasts as long as the connection: past the server's whole-request time limit.
      keepRequestOpen(req.socket);
      const splitter = new ActionSplitter();
      req.setEncoding('utf8');
      req.on('data', (chunk: string) => this.actionsFrom(conn, splitter, chunk));
    }
  }

  private async serveFetch(request: Request, target: StreamTarget): Promise<Response> {
    await this.start();
    const { account, identityId } = await this.gate.authenticate(target.credentials);
    const id = await this.gate.open(account.username, 'http');
    let conn: LiveConnection | undefined;
    const { body, sink } = streamedBody(() => {
      if (conn) void this.end(conn, 'client closed');
    });
    conn = new LiveConnection(id, account.username, 'http', target.kind !== 'single', this.clock.now(), sink, this.bufferBytes, (c) => void this.end(c, 'slow consumer'));
    conn.identityId = identityId;
    const rate = await this.opening(conn, target);
    // A client that went while this was decided: nobody reads the answer, the connection ends at once.
    if (request.signal.aborted) {
      void this.end(conn, 'client gone');
      return new Response(null, { status: 499 });
    }
    request.signal.addEventListener('abort', () => void this.end(conn, 'client closed'), { once: true });
    this.register(conn);
    const now = this.begin(conn, target);
    if (target.kind === 'multi' && target.hashes.length === 0) conn.send(tickMessage(now), now);
    return new Response(body, { status: 200, headers: { 'Content-Type': 'application/json', 'Cache-Control': 'no-cache', ...rateHeaders(rate) } });
  }

  private async serveWebSocket(req: IncomingMessage, socket: Duplex, head: Buffer, target: StreamTarget): Promise<void> {
    await this.start();
    let account, identityId: string | null;
    try {
      ({ account, identityId } = await this.gate.authenticate(target.credentials));
    } catch (error) {
      return refuseUpgradeWith(socket, error);
    }
    let id: string;
    try {
      id = await this.gate.open(account.username, 'websocket');
    } catch (error) {
      return refuseUpgradeWith(socket, error);
    }
    let ws: WebSocket | undefined;
    // Delivery callbacks in send order, behind one callback for every frame: a write with a callback of
    // its own cost a tick of its own, where writes sharing one are answered together. `ws` (and the
    // socket under it) answers writes in the order they were made, errors included.
    // A queue read from its head (an array's shift moves every entry behind it: thousands, for a consumer
    // that falls behind), compacted once its read part is the larger half.
    let sent: Delivered[] = [];
    let answered = 0;
    const onSent = (error?: Error | null): void => {
      const done = sent[answered];
      if (done === undefined) return;
      sent[answered++] = undefined as unknown as Delivered;
      if (answered >= 1024 && answered * 2 >= sent.length) {
        sent = sent.slice(answered);
        answered = 0;
      }
      done(!error);
    };
    const sink: MessageSink = {
      write: (text, done) => {
        if (!ws) return done?.(false);
        if (!done) return ws.send(text);
        if (ws.bufferedAmount === 0 && sent.length === answered) {
          // Nothing waits before it: written straight to the socket, whose kernel buffer took the frame
          // (or its start, when the buffer filled on it; a cut consumer may then be counted one message
          // it did not read whole). No callback to hold: the common case costs nothing more than a send.
          ws.send(text);
          return done(true);
        }
        sent.push(done);
        ws.send(text, onSent);
      },
      buffered: () => ws?.bufferedAmount ?? 0,
      close: () => {
        ws?.close(1000);
        setTimeout(() => ws?.terminate(), 1000).unref();
      },
    };
    const conn = new LiveConnection(id, account.username, 'websocket', true, this.clock.now(), sink, this.bufferBytes, (c) => void this.end(c, 'slow consumer'));
    conn.identityId = identityId;
    let rate: RateFigures;
    try {
      rate = await this.opening(conn, target);
    } catch (error) {
      return refuseUpgradeWith(socket, error);
    }
    if (socket.destroyed) return void this.end(conn, 'client gone');
    this.upgradeRates.set(req, rate);
    this.wss.handleUpgrade(req, socket, head, (opened) => {
      ws = opened;
      this.register(conn);
      opened.on('close', () => void this.end(conn, 'client closed'));
      opened.on('error', () => void this.end(conn, 'socket error'));
      opened.on('message', (data, isBinary) => {
        const text = isBinary ? '' : data.toString();
        this.act(conn, readAction(text));
      });
      this.begin(conn, target);
    });
  }

  /**
   * What every transport does once its connection is registered: a single-hash stream is told it is
   * subscribed (and gets what matched while that was decided), then the hashes the request named are
   * subscribed. Answers the instant it began.
   */
  private begin(conn: LiveConnection, target: StreamTarget): number {
    const now = this.clock.now();
    if (target.kind === 'single') {
      conn.send(subscribedMessage(target.hash!), now);
      this.flushHeld(conn, target.hash!);
    }
    conn.ready(now);
    for (const hash of target.hashes.slice(0, MAX_HASHES_PER_CONNECTION)) this.act(conn, { action: 'subscribe', hash });
    return now;
  }

  private actionsFrom(conn: LiveConnection, splitter: ActionSplitter, chunk: string): void {
    const { objects, junk } = splitter.push(chunk);
    if (junk) this.act(conn, { invalid: 'not a JSON object' });
    for (const text of objects) this.act(conn, readAction(text));
  }

  // ---- actions ----

  /** Actions take effect, and are answered, in the order they came. */
  private act(conn: LiveConnection, action: StreamAction | { invalid: string }): void {
    if (conn.closed) return;
    if ('invalid' in action) {
      const queued = conn.enqueue(async () => conn.send(invalidActionWarning(action.invalid), this.clock.now()), this.maxPending);
      if (!queued) conn.send(invalidActionWarning(action.invalid), this.clock.now());
      return;
    }
    if (action.action === 'stop') {
      conn.enqueue(async () => {
        conn.send(stopFailure(), this.clock.now());
        void this.end(conn, 'stop');
      }, Number.MAX_SAFE_INTEGER);
      return;
    }
    if (action.action === 'unsubscribe') {
      // Nothing more reaches it from now on, whatever the write's fate.
      const hash = action.hash.toLowerCase();
      if (!conn.subs.delete(hash)) return;
      conn.enqueue(async () => {
        await this.recordDelivered(conn.username);
        await this.gate.unsubscribe(conn.username, conn.id, hash).catch((e) => this.quietly(e));
      }, Number.MAX_SAFE_INTEGER);
      return;
    }
    const hash = action.hash.toLowerCase();
    const queued = conn.enqueue(() => this.subscribe(conn, hash), this.maxPending);
    if (!queued) conn.send(refusedWarning(hash, `more than ${this.maxPending} actions are waiting on this connection`), this.clock.now());
  }

  private async subscribe(conn: LiveConnection, hash: string): Promise<void> {
    if (conn.closed) return;
    const now = () => this.clock.now();
    if (conn.subs.has(hash)) {
      conn.send(subscribedMessage(hash), now());
      return;
    }
    if (!HASH.test(hash)) return conn.send(unknownHashWarning(hash), now());
    if (conn.subs.size >= MAX_HASHES_PER_CONNECTION) {
      return conn.send(refusedWarning(hash, `a connection may subscribe to at most ${MAX_HASHES_PER_CONNECTION} hashes`), now());
    }
    try {
      await this.subscribeFirst(conn, hash);
    } catch (error) {
      if (error instanceof CreditsExhausted) return conn.send(rateLimitWarning(hash, error.message), now());
      if (error instanceof DomainError && error.status === 404) return conn.send(unknownHashWarning(hash), now());
      if (error instanceof DomainError) return conn.send(refusedWarning(hash, error.message), now());
      this.onError(error);
      return conn.send(refusedWarning(hash, 'the server could not subscribe it; try again'), now());
    }
    conn.send(subscribedMessage(hash), now());
    this.flushHeld(conn, hash);
  }

  /**
   * The figures a new connection answers with. A single-hash stream subscribes first (its refusal is the
   * request's: the connection is closed, and the refusal thrown for the transport to answer); any other
   * answers the allowance as it stands.
   */
  private async opening(conn: LiveConnection, target: StreamTarget): Promise<RateFigures> {
    if (target.kind !== 'single') return this.gate.rate(conn.username, conn.identityId);
    try {
      return await this.subscribeFirst(conn, target.hash!);
    } catch (error) {
      this.forget(conn);
      await this.gate.close(conn.username, conn.id, 'refused').catch((e) => this.quietly(e));
      throw error;
    }
  }

  /**
   * Subscribes with the core, holding the matches the feed reads meanwhile: once the subscription's place
   * in the account's stream is known, those after it are its own. Throws the core's refusal.
   */
  private async subscribeFirst(conn: LiveConnection, hash: string): Promise<RateFigures> {
    const local: LocalSubscription = { seq: undefined, held: [] };
    conn.subs.set(hash, local);
    // The connection is registered for the feed from the first subscription on (its matches are held).
    this.register(conn, false);
    try {
      const r = await this.gate.subscribe(conn.username, conn.id, hash, conn.identityId);
      local.seq = r.seq;
      // Decided before the subscription: not its own, never sent, never counted.
      local.held = local.held.filter((h) => h.seq >= r.seq);
      return r.rate;
    } catch (error) {
      if (conn.subs.get(hash) === local) conn.subs.delete(hash);
      throw error;
    }
  }

  /** Sends what was held for a subscription while it was being decided. */
  private flushHeld(conn: LiveConnection, hash: string): void {
    const local = conn.subs.get(hash);
    if (!local || local.held.length === 0) return;
    const now = this.clock.now();
    for (const h of local.held) conn.sendText(h.text, now, h.done);
    local.held = [];
  }

  // ---- delivery ----

  private deliver(stored: StoredEvent): void {
    const event = asPlatformEvent(stored);
    if (event?.type === 'StreamDisconnected') return this.endedElsewhere(event.data.connection, event.data.reason);
    if (event?.type !== MATCHED_TYPE) return;
    const conns = this.byUser.get(accountOfStream(event.stream) ?? '');
    if (!conns || conns.size === 0) return;
    const items = event.data.items;
    // The version of the account's subscriptions the match was decided on; an earlier build wrote the
    // match into that aggregate itself, decided on the version before its own.
    const seq = event.data.seq ?? event.version - 1;
    const now = this.clock.now();
    // ---- relay notices (issue 35): the relay names hashes whose matches it dropped or did not match,
    // once a minute each; every connection subscribed to one is warned. ----
    for (const [hash, message] of relayNoticeMessages(event.data)) {
      for (const conn of conns) if (!conn.closed && conn.subs.has(hash)) conn.send(message, now);
    }
    const texts = new Map<string, string>();
    // One counter per connection for all it is sent of this match event (not a callback each: held
    // until the socket takes its frame, thousands of them were most of the fan-out's garbage).
    const counters = new Map<LiveConnection, DeliveryCounter>();
    for (const item of items) {
      let json: string | undefined;
      let type: string | undefined | null = null;
      for (const hash of item.hashes) {
        for (const conn of conns) {
          const sub = conn.subs.get(hash);
          if (!sub || conn.closed) continue;
          if (sub.seq !== undefined && seq < sub.seq) continue;
          json ??= JSON.stringify(item.interaction);
          if (type === null) type = licenceTypeOf(item.interaction);
          const key = `${conn.wrapped ? 'w' : 'b'}${hash}`;
          let text = texts.get(key);
          if (text === undefined) texts.set(key, (text = messageText(hash, item.interaction, json, conn.wrapped)));
          if (sub.seq === undefined) {
            // Held while the subscription is decided; a decision that takes for ever (the store away)
            // does not make the server hold for ever: past the connection's bound it is cut as slow.
            // Sent later than the rest, so counted on its own.
            sub.held.push({ seq, text, done: this.counted(conn, hash, type, now) });
            if (sub.held.length > MAX_HELD) {
              conn.send(slowFailure(), now);
              void this.end(conn, 'slow consumer');
            }
            continue;
          }
          let counter = counters.get(conn);
          if (!counter) counters.set(conn, (counter = new DeliveryCounter(conn, now, this.tally, this.realNow)));
          conn.sendText(text, now, counter.next(hash, type));
        }
      }
      texts.clear();
    }
  }

  /**
   * A connection of this process ended by another, which took this one for dead (a stall longer than
   * the lapse): the log no longer holds it open, so its subscriptions match nothing more. The client is
   * told, and reconnects.
   */
  private endedElsewhere(connection: string, reason: string): void {
    const conn = this.byId.get(connection);
    if (!conn || conn.closed || reason !== HOST_LOST) return;
    conn.send(keepAliveFailure(), this.clock.now());
    void this.end(conn, HOST_LOST);
  }

  /**
   * What a delivery does once the transport took it: counted on the connection and for the account's
   * licences, in the minute it was sent (`at`, read once for every delivery of a match).
   */
  private counted(conn: LiveConnection, hash: string, type: string | undefined, at: number): Delivered {
    return (ok) => {
      if (!ok) return;
      conn.delivered++;
      this.tally.add(conn.username, hash, type, at, this.realNow);
    };
  }

  /**
   * Records the account's delivered counts in one write (after any write of them already under way).
   * A failed write gives them back to the tally, for the next try.
   */
  private recordDelivered(username: string): Promise<void> {
    const before = this.recording.get(username) ?? Promise.resolve();
    const run = before.then(async () => {
      const counts = this.tally.take(username);
      if (!counts) return;
      try {
        await this.gate.recordDelivered(username, counts);
      } catch (error) {
        // Refused counts would be refused again at every try: told, not kept. A store away is tried again.
        if (!(error instanceof DomainError)) this.tally.restore(username, counts, this.clock.now(), this.realNow());
        this.onError(error);
      }
    });
    this.recording.set(username, run);
    void run.then(() => {
      if (this.recording.get(username) === run) this.recording.delete(username);
    });
    return run;
  }

  /**
   * Drops from the log the matches older than `matchesKeptMs` of real time: every process that follows
   * the log read them within about a second. Positions are remembered as the head moves, so what is
   * dropped is what was already in the log that long ago.
   */
  private async dropOldMatches(realNow: number): Promise<void> {
    const store = this.engine.store;
    if (!store.dropTypes || this.dropping) return;
    this.dropping = true;
    try {
      this.heads.push({ at: realNow, head: await store.head() });
      let through: number | undefined;
      while (this.heads.length > 0 && realNow - this.heads[0]!.at >= this.matchesKeptMs) through = this.heads.shift()!.head;
      if (through !== undefined && through > 0) await store.dropTypes([MATCHED_TYPE], through);
    } catch (error) {
      this.onError(error);
    } finally {
      this.dropping = false;
    }
  }

  private tick(): void {
    const now = this.clock.now();
    const realNow = this.realNow();
    for (const conn of this.byId.values()) if (now - conn.lastSent >= this.tickMs) conn.send(tickMessage(now), now);
    for (const username of this.tally.due(now, realNow, this.deliveriesHeldMs)) if (!this.recording.has(username)) void this.recordDelivered(username);
    if (realNow - this.lastHeadCheck >= DROP_CHECK_MS) {
      this.lastHeadCheck = realNow;
      void this.dropOldMatches(realNow);
    }
  }

  // ---- connections ----

  private register(conn: LiveConnection, listed = true): void {
    let set = this.byUser.get(conn.username);
    if (!set) this.byUser.set(conn.username, (set = new Set()));
    set.add(conn);
    if (listed) this.byId.set(conn.id, conn);
    // Matches are read while this process has someone to send them to; the feed resumes where it paused,
    // so what was committed meanwhile (held for a subscription being decided) still arrives.
    this.feed.start();
  }

  /** Takes the connection out of this process' lists (the feed no longer sees it). */
  private forget(conn: LiveConnection): void {
    this.byId.delete(conn.id);
    const set = this.byUser.get(conn.username);
    set?.delete(conn);
    if (set?.size === 0) this.byUser.delete(conn.username);
    if (this.byUser.size === 0) this.feed.pause();
  }

  private async end(conn: LiveConnection, reason: string): Promise<void> {
    if (conn.closed) return;
    conn.closed = true;
    this.forget(conn);
    conn.closeSink();
    await conn.settled();
    await this.recordDelivered(conn.username);
    await this.gate.close(conn.username, conn.id, reason).catch((e) => this.quietly(e));
  }

  private quietly(error: unknown): void {
    if (!(error instanceof DomainError)) this.onError(error);
  }

  private failed(error: unknown, res: ServerResponse): void {
    this.onError(error);
    if (!res.headersSent) refuseHttp(res, error);
    else res.destroy();
  }
}

/**
 * Counts what one match event sent to one connection, as the transport takes it: every message shares
 * one callback (`next` returns it), and the transport answers a connection's messages in the order they
 * were written, each once, so the n-th answer is the n-th message's.
 */
class DeliveryCounter {
  private readonly hashes: string[] = [];
  private readonly types: (string | undefined)[] = [];
  private answered = 0;
  private readonly done: Delivered = (ok) => {
    const i = this.answered++;
    if (!ok) return;
    this.conn.delivered++;
    this.tally.add(this.conn.username, this.hashes[i]!, this.types[i], this.at, this.realNow);
  };

  constructor(
    private readonly conn: LiveConnection,
    private readonly at: number,
    private readonly tally: DeliveryTally,
    private readonly realNow: () => number,
  ) {}

  next(hash: string, type: string | undefined): Delivered {
    this.hashes.push(hash);
    this.types.push(type);
    return this.done;
  }
}
