import type { StreamTransport, StreamCredentials } from '@sdp/core/internal';
import type { DeliveryCounter } from './delivery-tally.ts';
import type { StreamMessage } from './stream-messages.ts';
import { slowFailure, slowWarning } from './stream-messages.ts';

/**
 * A message on its way out: its text, and its WebSocket frame once a WebSocket made it. A match sent to
 * many connections is one of these for all of them, so its frame is built once, not once a connection.
 */
export interface OutText {
  readonly text: string;
  frame?: Buffer;
}

/** Where a connection's messages go: a WebSocket, or a chunked HTTP response. */
export interface MessageSink {
  /**
   * Writes one message (a WebSocket frame, or one chunk `<text>\n`). `done`, when given, is told once
   * whether the message left for the client (taken by the socket, or read from the body) or never will.
   */
  write(out: OutText, done?: Delivered): void;
  /** Bytes written but not yet taken by the client (what waits corked is not written yet). */
  buffered(): number;
  /** Ends the transport (after what was written, if the client still reads). */
  close(): void;
  /**
   * Holds what is written until `uncork`, then hands it to the socket in one write (a WebSocket: a page
   * of matches is one system call a connection, not one a frame). Absent where writes are paced anyway.
   */
  cork?(): void;
  uncork?(): void;
}

/** Told whether a message was delivered: `true` once the transport took it, `false` when it never will. */
export type Delivered = (ok: boolean) => void;

/** A match held for a subscription being decided: the aggregate version it was decided on, its message. */
export interface HeldMatch {
  seq: number;
  out: OutText;
  done: Delivered;
}

/** A subscription on this process: its place in the account's stream once known, matches held until then. */
export interface LocalSubscription {
  seq: number | undefined;
  held: HeldMatch[];
}

export interface ConnectionView {
  id: string;
  username: string;
  transport: StreamTransport;
  hashes: string[];
  opened_at: number;
  delivered: number;
}

/**
 * One open stream connection on this process: the hashes it is subscribed to, what it has sent, and the
 * bound on what it may leave unread. Past half the bound it is warned once; past the bound it gets a
 * `failure` and is cut, so a consumer that stops reading holds at most `bufferBytes` of this server.
 */
export class LiveConnection {
  readonly subs = new Map<string, LocalSubscription>();
  delivered = 0;
  lastSent: number;
  closed = false;
  /** What the fan-out counts of the page of matches it is writing to this connection (set by it, for the page). */
  counter: DeliveryCounter | undefined;
  private corked = false;
  private warned = false;
  /** Messages decided before the transport is open (the 101 or the 200 not yet sent), sent by `ready`. */
  private early: { out: OutText; done: Delivered | undefined }[] | undefined = [];
  private queue: Promise<void> = Promise.resolve();
  private pending = 0;

  /** Hashes whose subscribe action waits its turn (an unsubscribe of one of them must wait for it too). */
  readonly pendingSubs = new Map<string, number>();

  constructor(
    readonly id: string,
    /** The credentials that opened it: each subscription is judged on them, as a REST call with that key is. */
    readonly credentials: StreamCredentials,
    readonly username: string,
    readonly transport: StreamTransport,
    /** Whether interactions come wrapped with their hash (every connection but a single-hash HTTP stream). */
    readonly wrapped: boolean,
    readonly openedAt: number,
    private readonly sink: MessageSink,
    private readonly bufferBytes: number,
    private readonly onSlow: (connection: LiveConnection) => void,
  ) {
    this.lastSent = openedAt;
  }

  send(message: StreamMessage, now: number): void {
    this.sendOut({ text: JSON.stringify(message) }, now);
  }

  /** `done` is told whether the message was delivered (never, when the connection has closed). */
  sendOut(out: OutText, now: number, done?: Delivered): void {
    if (this.closed) return done?.(false);
    if (this.early) {
      this.early.push({ out, done });
      return;
    }
    this.sink.write(out, done);
    this.lastSent = now;
    this.checkHeld();
  }

  /**
   * Holds the connection to its bound on what it leaves unread, whatever filled it: messages, and the
   * transport's own frames (a WebSocket's pongs answer a peer's pings, one each, up to a frame's size).
   */
  checkHeld(): void {
    if (this.closed) return;
    const buffered = this.sink.buffered();
    if (buffered > this.bufferBytes) {
      this.sink.write({ text: JSON.stringify(slowFailure()) });
      this.onSlow(this);
    } else if (buffered > this.bufferBytes / 2 && !this.warned) {
      this.warned = true;
      this.sink.write({ text: JSON.stringify(slowWarning()) });
    } else if (buffered <= this.bufferBytes / 4) this.warned = false;
  }

  /** Runs the connection's actions one at a time, in the order received; `false` when too many wait. */
  enqueue(work: () => Promise<void>, maxPending: number): boolean {
    if (this.pending >= maxPending) return false;
    this.pending++;
    this.queue = this.queue.then(work).finally(() => this.pending--);
    return true;
  }

  /** Waits for the actions queued so far. */
  settled(): Promise<void> {
    return this.queue;
  }

  /** The transport is open: what waited goes out, in order. */
  ready(now: number): void {
    const early = this.early;
    this.early = undefined;
    for (const { out, done } of early ?? []) this.sendOut(out, now, done);
  }

  /** Holds what is sent until `uncork` (a transport open and able to); `true` if this corked it. */
  cork(): boolean {
    if (this.corked || this.closed || this.early || !this.sink.cork) return false;
    this.corked = true;
    this.sink.cork();
    return true;
  }

  /** What was held goes to the transport; the bound on unread bytes is checked on what it did not take. */
  uncork(): void {
    if (!this.corked) return;
    this.corked = false;
    this.sink.uncork!();
    this.checkHeld();
  }

  closeSink(): void {
    // What never reached the transport was never delivered.
    for (const { done } of this.early?.splice(0) ?? []) done?.(false);
    this.sink.close();
  }

  view(): ConnectionView {
    return { id: this.id, username: this.username, transport: this.transport, hashes: [...this.subs.keys()], opened_at: Math.floor(this.openedAt / 1000), delivered: this.delivered };
  }
}
