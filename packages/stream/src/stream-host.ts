import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import { MATCHED_TYPE, MATCHES_KEPT_MS, MAX_HASHES_PER_CONNECTION, type MatchedEvent, type StreamTransport, HOST_LOST, StreamCalls, limitOf } from '@sdp/core/internal';
import { accountOfStream, asPlatformEvent, type CallAnswer, type Engine, type RateFigures } from '@sdp/core';
import { LogProcessor, type Clock, type StoredEvent } from '@sdp/core/kernel';
import { answerClientError } from '@sdp/http';
import { readAction, type ActionSplitter, type StreamAction } from './action-splitter.ts';
import { DeliveryTally } from './delivery-tally.ts';
import { FanOut } from './fan-out.ts';
import { HostKeeping } from './host-keeping.ts';
import { serveFetch, serveHttp } from './http-transports.ts';
import { LiveConnection, type ConnectionView, type LocalSubscription, type MessageSink } from './live-connection.ts';
import { MatchFeed } from './match-feed.ts';
import { HANDSHAKE_MS, guardUpgrade, refuseUpgrade } from './socket-guard.ts';
import { problemAnswer, rateHeaders, refusalResponse, refuseHttp } from './stream-answers.ts';
import { HASH, fetchStreamTarget, streamTarget, type StreamTarget } from './stream-target.ts';
import { closingFailure, invalidActionWarning, keepAliveFailure, rateLimitWarning, refusedWarning, stopFailure, subscribedMessage, tickMessage, unknownHashWarning } from './stream-messages.ts';
import type { Admitted, WebSocketHost } from './transport-host.ts';
import { serveWebSocket } from './websocket-transport.ts';

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
  /** Time an upgrade may take from its head to its 101 or refusal. Default `HANDSHAKE_MS`; tests shorten it. */
  handshakeMs?: number;
}

/** Real time between looks for connections owed a tick (and counts owed a write). */
const TICK_CHECK_MS = 250;

/**
 * The stream product on a node:http server: WebSocket upgrades at `/`, `/multi` and `/<hash>`, HTTP
 * streams at `GET /<hash>` and `GET /multi?hashes=`, and the duplex `GET /` whose chunked request body
 * carries actions. Every decision (who may stream, what a subscription costs, every limit) is a call of
 * the engine's one door (`StreamCalls` → `Engine.call`), judged as a REST call is; this holds the
 * sockets (`websocket-transport.ts`, `http-transports.ts`), follows the log for matches and writes them
 * out (`fan-out.ts`), and keeps this process known as a host (`host-keeping.ts`).
 */
export class StreamHost {
  private readonly clock: Clock;
  private readonly onError: (error: unknown) => void;
  private readonly wss = new WebSocketServer({ noServer: true, maxPayload: 64 * 1024, perMessageDeflate: false });
  /** Rate figures for the 101 of an upgrade in progress (the `headers` event sees only the request). */
  private readonly upgradeRates = new WeakMap<IncomingMessage, RateFigures>();
  private closing = false;
  /** What the transports ask of this host (its decisions all go through the engine's door). */
  private readonly transports: WebSocketHost;
  private readonly engine: Engine;
  private readonly calls: StreamCalls;
  private readonly keeping: HostKeeping;
  private readonly bufferBytes: number;
  private readonly tickMs: number;
  private readonly maxPending: number;
  private readonly endLeftOpen: boolean;
  private readonly deliveriesHeldMs: number;
  private readonly realNow: () => number;
  /** Connections registered for the feed (live, or with a subscription being decided), by id. */
  private readonly fed = new Map<string, LiveConnection>();
  /** Live connections, by id (`GET /_admin/streams`). */
  private readonly byId = new Map<string, LiveConnection>();
  private readonly feed: MatchFeed;
  private readonly tally = new DeliveryTally();
  private readonly fanOut: FanOut;
  /** Accounts whose counts are being written now (one write at a time each). */
  private readonly recording = new Map<string, Promise<void>>();
  private ticker: NodeJS.Timeout | undefined;
  private sweeper: NodeJS.Timeout | undefined;
  private sweeping = false;
  private started: Promise<void> | undefined;

  constructor(options: StreamHostOptions) {
    this.engine = options.engine;
    this.clock = options.clock ?? options.engine.clock;
    this.onError = options.onError ?? ((e) => console.error('stream:', e));
    this.realNow = options.realNow ?? Date.now;
    this.keeping = new HostKeeping({
      engine: options.engine,
      clock: this.clock,
      liveness: options.liveness,
      matchesKeptMs: options.matchesKeptMs ?? MATCHES_KEPT_MS,
      realNow: this.realNow,
      onError: this.onError,
    });
    this.calls = new StreamCalls(options.engine, this.keeping.hosting);
    this.bufferBytes = options.bufferBytes ?? 1024 * 1024;
    this.tickMs = options.tickMs ?? 30_000;
    this.maxPending = options.maxPendingActions ?? 64;
    this.endLeftOpen = options.endLeftOpen ?? false;
    this.deliveriesHeldMs = options.deliveriesHeldMs ?? 60_000;
    this.fanOut = new FanOut(this.tally, this.realNow, (c, reason) => void this.end(c, reason));
    this.feed = new MatchFeed(this.engine.store, (e) => this.deliver(e), this.onError);
    const host = this;
    this.transports = {
      get clock() {
        return host.clock;
      },
      get onError() {
        return host.onError;
      },
      get closing() {
        return host.closing;
      },
      wss: this.wss,
      handshakeMs: options.handshakeMs ?? HANDSHAKE_MS,
      upgradeRates: this.upgradeRates,
      admit: (target, transport, sink) => this.admit(target, transport, sink),
      register: (conn) => this.register(conn),
      begin: (conn, target) => this.begin(conn, target),
      end: (conn, reason) => this.end(conn, reason),
      actionsFrom: (conn, splitter, chunk) => this.actionsFrom(conn, splitter, chunk),
      actOnText: (conn, text) => this.act(conn, readAction(text)),
    };
    this.wss.on('headers', (headers, req) => {
      const rate = this.upgradeRates.get(req);
      if (rate) for (const [name, value] of Object.entries(rateHeaders(rate))) headers.push(`${name}: ${value}`);
    });
  }

  /** Starts following the log (once); `attach` and the handlers call it themselves. */
  start(): Promise<void> {
    this.started ??= (async () => {
      if (this.endLeftOpen) await this.endConnectionsLeftOpen();
      await this.keeping.start();
      if (this.keeping.hosting) {
        this.sweeper = setInterval(() => void this.sweep(), this.keeping.sweepMs);
        this.sweeper.unref();
      }
      // Where the feed starts: the log's head now. It reads only while a connection is registered.
      this.feed.start();
      await this.feed.caughtUp();
      if (this.fed.size === 0) this.feed.pause();
      this.ticker = setInterval(() => this.tick(), TICK_CHECK_MS);
      this.ticker.unref();
    })();
    return this.started;
  }

  /**
   * Serves the stream on `server` beside what it serves already: stream requests and upgrades go here,
   * every other request to the listeners it had. Every upgrade the server hands over is this host's to
   * answer and close: one for no stream path is refused here.
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

  /** Ends what dead hosts held (bounded per sweep; one sweep at a time); how many connections it ended. `known`: only that host, known dead. */
  async sweep(known?: string): Promise<number> {
    if (this.closing) return 0;
    // A known death is swept at once, beside a periodic sweep that may be running (both are bounded).
    if (known !== undefined) return this.calls.sweep(known).catch((e) => (this.onError(e), 0));
    if (this.sweeping) return 0;
    this.sweeping = true;
    try {
      return await this.calls.sweep();
    } catch (error) {
      this.onError(error);
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
    const hosting = this.keeping.hosting;
    if (!hosting || host === hosting.host) return 0;
    await hosting.liveness.expire(host).catch((e) => this.onError(e));
    return this.sweep(host);
  }

  /** This process's id as a host of connections (recorded on each), where the store keeps liveness records. */
  get host(): string | undefined {
    return this.keeping.hosting?.host;
  }

  /** Reads only the connect and disconnect events (start-up never reads the whole log). */
  private async endConnectionsLeftOpen(): Promise<void> {
    const open = new Map<string, { username: string; connection: string }>();
    const connections = new LogProcessor(
      this.engine.store,
      (page) => {
        for (const stored of page) {
          const e = asPlatformEvent(stored);
          const username = accountOfStream(stored.stream);
          if (username === undefined || (e?.type !== 'StreamConnected' && e?.type !== 'StreamDisconnected')) continue;
          const key = `${username}\n${e.data.connection}`;
          if (e.type === 'StreamConnected') open.set(key, { username, connection: e.data.connection });
          else open.delete(key);
        }
      },
      { types: ['StreamConnected', 'StreamDisconnected'], after: 0 },
    );
    await connections.catchUp();
    for (const { username, connection } of open.values()) this.failed(await this.calls.close(username, connection, 'server restarted'));
  }

  /** Takes the request if it is a stream's (`true`), else leaves it untouched (`false`). */
  handleRequest(req: IncomingMessage, res: ServerResponse): boolean {
    const target = streamTarget(req, false);
    if (!target || this.closing) return false;
    void serveHttp(this.transports, req, res, target).catch((error) => {
      this.onError(error);
      if (!res.headersSent) refuseHttp(res, problemAnswer());
      else res.destroy();
    });
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
      return await serveFetch(this.transports, request, target);
    } catch (error) {
      this.onError(error);
      return refusalResponse(problemAnswer());
    }
  }

  /** Takes the upgrade if it is a stream's (`true`); the socket is then this host's to answer and close. */
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): boolean {
    const target = /websocket/i.test(req.headers.upgrade ?? '') ? streamTarget(req, true) : undefined;
    if (!target) return false;
    if (this.closing) {
      refuseUpgrade(socket, 503, closingFailure().message as string);
      return true;
    }
    void serveWebSocket(this.transports, req, socket, head, target).catch((error) => {
      this.onError(error);
      guardUpgrade(socket, 0);
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
    clearInterval(this.sweeper);
    const now = this.clock.now();
    await Promise.all([...this.fed.values()].map((c) => {
      c.send(closingFailure(), now);
      return this.end(c, 'server closing');
    }));
    // A turn for the transports to confirm what they took, then every count left is recorded.
    await new Promise((resolve) => setImmediate(resolve));
    await Promise.all(this.tally.accounts().map((username) => this.recordDelivered(username)));
    await this.keeping.stop().catch((e) => this.onError(e));
    this.wss.close();
  }

  /**
   * The operator's reset: every connection ends (its subscriptions went with the store), then
   * `emptyStore` runs; the feed follows the emptied log from its start.
   */
  async reset(emptyStore: () => Promise<void>): Promise<void> {
    const now = this.clock.now();
    for (const c of [...this.fed.values()]) {
      c.send(closingFailure(), now);
      c.closed = true;
      this.forget(c);
      c.closeSink();
    }
    this.tally.clear();
    this.fanOut.clear();
    await emptyStore();
    await this.keeping.afterReset().catch((e) => this.onError(e));
  }

  /** Resolves once every match committed before the call has been delivered. */
  caughtUp(): Promise<void> {
    return this.feed.caughtUp();
  }

  // ---- connections ----

  /**
   * Opens a connection through the engine's door; a single-hash stream also subscribes its hash first
   * (its refusal is the request's: the connection is closed again).
   */
  private async admit(target: StreamTarget, transport: StreamTransport, sink: MessageSink): Promise<Admitted> {
    await this.start();
    const opened = await this.calls.open(target.credentials, transport);
    if (opened.status !== 200) {
      // The judge's refusal, in the words the original's stream used when a request carried no credentials.
      if (opened.status === 401 && !target.credentials) return { refused: { ...opened, body: { error: 'A username and API key are both required' } } };
      return { refused: opened };
    }
    const credentials = target.credentials!;
    const id = (opened.body as { connection: string }).connection;
    // Interactions come wrapped with their hash everywhere but on a single-hash HTTP stream.
    const wrapped = transport === 'websocket' || target.kind !== 'single';
    const conn = new LiveConnection(id, credentials, credentials.username, transport, wrapped, this.clock.now(), sink, this.bufferBytes, (c) => void this.end(c, 'slow consumer'));
    if (target.kind !== 'single') return { conn, rate: opened.rate! };
    const subscribed = await this.subscribeFirst(conn, target.hash!);
    if ('rate' in subscribed) return { conn, rate: subscribed.rate };
    conn.closed = true;
    this.forget(conn);
    this.failed(await this.calls.close(conn.username, conn.id, 'refused'));
    return { refused: subscribed.refused };
  }

  private register(conn: LiveConnection, listed = true): void {
    this.fed.set(conn.id, conn);
    if (listed) this.byId.set(conn.id, conn);
    // Matches are read while this process has someone to send them to; the feed resumes where it paused,
    // so what was committed meanwhile (held for a subscription being decided) still arrives.
    this.feed.start();
  }

  /** Takes the connection out of this process' lists (the feed no longer sees it). */
  private forget(conn: LiveConnection): void {
    this.byId.delete(conn.id);
    this.fed.delete(conn.id);
    this.fanOut.removeAll(conn);
    if (this.fed.size === 0) this.feed.pause();
  }

  private async end(conn: LiveConnection, reason: string): Promise<void> {
    if (conn.closed) return;
    conn.closed = true;
    this.forget(conn);
    conn.closeSink();
    await conn.settled();
    await this.recordDelivered(conn.username);
    this.failed(await this.calls.close(conn.username, conn.id, reason).catch((e) => (this.onError(e), undefined)));
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

  // ---- actions ----

  private actionsFrom(conn: LiveConnection, splitter: ActionSplitter, chunk: string): void {
    const { objects, junk } = splitter.push(chunk);
    if (junk) this.act(conn, { invalid: 'not a JSON object' });
    for (const text of objects) this.act(conn, readAction(text));
  }

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
    const hash = action.hash.toLowerCase();
    if (action.action === 'unsubscribe') {
      // Of a hash neither subscribed nor waiting to be: nothing to do (so unsubscribes queue no further
      // than the subscriptions they undo).
      if (!conn.subs.has(hash) && !conn.pendingSubs.has(hash)) return;
      // Nothing more reaches it from now on; one still waiting its turn is undone in its place.
      this.dropSubscription(conn, hash);
      conn.enqueue(async () => {
        this.dropSubscription(conn, hash);
        await this.recordDelivered(conn.username);
        this.failed(await this.calls.unsubscribe(conn.username, conn.id, hash));
      }, Number.MAX_SAFE_INTEGER);
      return;
    }
    const queued = conn.enqueue(async () => {
      try {
        await this.subscribe(conn, hash);
      } finally {
        const n = conn.pendingSubs.get(hash)! - 1;
        if (n > 0) conn.pendingSubs.set(hash, n);
        else conn.pendingSubs.delete(hash);
      }
    }, this.maxPending);
    if (queued) conn.pendingSubs.set(hash, (conn.pendingSubs.get(hash) ?? 0) + 1);
    else conn.send(refusedWarning(hash, `more than ${this.maxPending} actions are waiting on this connection`), this.clock.now());
  }

  private dropSubscription(conn: LiveConnection, hash: string): void {
    if (!conn.subs.has(hash)) return;
    this.fanOut.remove(conn, hash);
    conn.subs.delete(hash);
  }

  private async subscribe(conn: LiveConnection, hash: string): Promise<void> {
    if (conn.closed) return;
    const now = () => this.clock.now();
    if (conn.subs.has(hash)) return conn.send(subscribedMessage(hash), now());
    if (!HASH.test(hash)) return conn.send(unknownHashWarning(hash), now());
    if (conn.subs.size >= MAX_HASHES_PER_CONNECTION) {
      return conn.send(refusedWarning(hash, `a connection may subscribe to at most ${MAX_HASHES_PER_CONNECTION} hashes`), now());
    }
    const subscribed = await this.subscribeFirst(conn, hash);
    if ('rate' in subscribed) {
      conn.send(subscribedMessage(hash), now());
      return this.flushHeld(conn, hash);
    }
    const { status, body } = subscribed.refused;
    const error = (body as { error?: string } | undefined)?.error ?? `refused (${status})`;
    if (status === 429 && limitOf(subscribed.refused) === undefined) return conn.send(rateLimitWarning(hash, error), now());
    if (status === 404) return conn.send(unknownHashWarning(hash), now());
    if (status >= 500) return conn.send(refusedWarning(hash, 'the server could not subscribe it; try again'), now());
    return conn.send(refusedWarning(hash, error), now());
  }

  /**
   * Subscribes through the engine, holding the matches the feed reads meanwhile: once the subscription's
   * place in the account's stream is known, those after it are its own.
   */
  private async subscribeFirst(conn: LiveConnection, hash: string): Promise<{ rate: RateFigures } | { refused: CallAnswer }> {
    const local: LocalSubscription = { seq: undefined, held: [] };
    conn.subs.set(hash, local);
    this.fanOut.add(conn, hash);
    // The connection is registered for the feed from the first subscription on (its matches are held).
    this.register(conn, false);
    const answer = await this.calls.subscribe(conn.credentials, conn.id, hash);
    if (answer.status === 200) {
      const seq = (answer.body as { seq: number }).seq;
      local.seq = seq;
      // Decided before the subscription: not its own, never sent, never counted.
      local.held = local.held.filter((h) => h.seq >= seq);
      return { rate: answer.rate! };
    }
    if (conn.subs.get(hash) === local) this.dropSubscription(conn, hash);
    if (conn.subs.size === 0 && !this.byId.has(conn.id)) this.fed.delete(conn.id);
    return { refused: answer };
  }

  /** Sends what was held for a subscription while it was being decided. */
  private flushHeld(conn: LiveConnection, hash: string): void {
    const local = conn.subs.get(hash);
    if (!local || local.held.length === 0) return;
    const now = this.clock.now();
    for (const h of local.held) conn.sendOut(h.out, now, h.done);
    local.held = [];
  }

  // ---- delivery ----

  /** A page the feed read: its matches reach each connection in one write (the fan-out corks them meanwhile). */
  private deliver(page: StoredEvent[]): void {
    const now = this.clock.now();
    try {
      for (const stored of page) {
        const event = asPlatformEvent(stored);
        if (event?.type === 'StreamDisconnected') this.endedElsewhere(event.data.connection, event.data.reason);
        else if (event?.type === MATCHED_TYPE) this.fanOut.deliver(event as MatchedEvent & { stream: string; version: number }, now);
      }
    } finally {
      this.fanOut.endPage();
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
   * Records the account's delivered counts in one call (after any of them already under way). Counts a
   * store away did not take go back to the tally, for the next try; refused ones are told, not kept.
   */
  private recordDelivered(username: string): Promise<void> {
    const before = this.recording.get(username) ?? Promise.resolve();
    const run = before.then(async () => {
      const counts = this.tally.take(username);
      if (!counts) return;
      const answer = await this.calls.deliveries(username, counts).catch((e) => (this.onError(e), undefined));
      if (answer === undefined || answer.status >= 500) this.tally.restore(username, counts, this.clock.now(), this.realNow());
      this.failed(answer);
    });
    this.recording.set(username, run);
    void run.then(() => {
      if (this.recording.get(username) === run) this.recording.delete(username);
    });
    return run;
  }

  private tick(): void {
    const now = this.clock.now();
    const realNow = this.realNow();
    for (const conn of this.byId.values()) if (now - conn.lastSent >= this.tickMs) conn.send(tickMessage(now), now);
    for (const username of this.tally.due(now, realNow, this.deliveriesHeldMs)) if (!this.recording.has(username)) void this.recordDelivered(username);
    void this.keeping.dropOldMatches();
  }

  /** An answer of the engine to one of the stream's own calls that did not go through: told, unless it is a refusal. */
  private failed(answer: CallAnswer | undefined): void {
    if (answer && answer.status >= 500) this.onError(new Error(`stream: ${JSON.stringify(answer.body)}`));
  }
}
