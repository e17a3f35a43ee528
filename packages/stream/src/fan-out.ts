import { licenceTypeOf, type MatchedEvent } from '@sdp/core/internal';
import { accountOfStream } from '@sdp/core';
import { DeliveryCounter, type DeliveryTally } from './delivery-tally.ts';
import type { Delivered, LiveConnection, OutText } from './live-connection.ts';
import { messageText } from './stream-answers.ts';
import { relayNoticeMessages, slowFailure } from './stream-messages.ts';

/** Matches held for one subscription while it is being decided, at most. */
const MAX_HELD = 10_000;

/**
 * Who receives what an account matched: an index from each subscribed hash to its connections on this
 * process, kept as subscriptions begin and end, so delivering a match costs the connections that get it
 * and nothing for those that do not. Each interaction's JSON is made once, and each message (its text,
 * its WebSocket frame) once for the wrapped and once for the bare form, whatever the number of
 * connections that get it.
 */
export class FanOut {
  private readonly byAccount = new Map<string, Map<string, Set<LiveConnection>>>();
  /** Connections sent something in the page being delivered (corked, with a counter), until `endPage`. */
  private readonly touched: LiveConnection[] = [];

  constructor(
    private readonly tally: DeliveryTally,
    private readonly realNow: () => number,
    /** Cuts a connection (held matches past their bound). */
    private readonly cut: (conn: LiveConnection, reason: string) => void,
  ) {}

  add(conn: LiveConnection, hash: string): void {
    let hashes = this.byAccount.get(conn.username);
    if (!hashes) this.byAccount.set(conn.username, (hashes = new Map()));
    let conns = hashes.get(hash);
    if (!conns) hashes.set(hash, (conns = new Set()));
    conns.add(conn);
  }

  remove(conn: LiveConnection, hash: string): void {
    const hashes = this.byAccount.get(conn.username);
    const conns = hashes?.get(hash);
    if (!conns?.delete(conn)) return;
    if (conns.size === 0) hashes!.delete(hash);
    if (hashes!.size === 0) this.byAccount.delete(conn.username);
  }

  removeAll(conn: LiveConnection): void {
    for (const hash of conn.subs.keys()) this.remove(conn, hash);
  }

  clear(): void {
    this.byAccount.clear();
  }

  /**
   * Sends one match event to the subscriptions it is for (those begun at or before the version it was
   * decided on). What it sends a connection waits, corked, until `endPage`: a page of the log reaches
   * each connection in one write of its socket.
   */
  deliver(stored: MatchedEvent & { stream: string; version: number }, now: number): void {
    const hashes = this.byAccount.get(accountOfStream(stored.stream) ?? '');
    if (!hashes) return;
    // The version of the account's subscriptions the match was decided on; an earlier build wrote the
    // match into that aggregate itself, decided on the version before its own.
    const seq = stored.data.seq ?? stored.version - 1;
    // The relay names the hashes whose matches it dropped (past the account's budget) or did not match
    // (past the hashes matched per interaction), once a minute each: their subscribers are warned.
    for (const [hash, message] of relayNoticeMessages(stored.data)) {
      for (const conn of hashes.get(hash) ?? []) if (!conn.closed) conn.send(message, now);
    }
    for (const item of stored.data.items) {
      let json: string | undefined;
      let type: string | undefined | null = null;
      for (const hash of item.hashes) {
        const conns = hashes.get(hash);
        if (!conns) continue;
        let bare: OutText | undefined;
        let wrapped: OutText | undefined;
        for (const conn of conns) {
          const sub = conn.subs.get(hash);
          if (!sub || conn.closed) continue;
          if (sub.seq !== undefined && seq < sub.seq) continue;
          json ??= JSON.stringify(item.interaction);
          if (type === null) type = licenceTypeOf(item.interaction);
          const out = conn.wrapped
            ? (wrapped ??= { text: messageText(hash, item.interaction, json, true) })
            : (bare ??= { text: messageText(hash, item.interaction, json, false) });
          if (sub.seq === undefined) {
            // Held while the subscription is decided; a decision that takes for ever (the store away)
            // does not make the server hold for ever: past the bound the connection is cut as slow.
            // Sent later than the rest, so counted on its own.
            sub.held.push({ seq, out, done: this.counted(conn, hash, type, now) });
            if (sub.held.length > MAX_HELD) {
              conn.send(slowFailure(), now);
              this.cut(conn, 'slow consumer');
            }
            continue;
          }
          let counter = conn.counter;
          if (counter === undefined) {
            conn.counter = counter = new DeliveryCounter(conn, now, this.tally, this.realNow);
            this.touched.push(conn);
            conn.cork();
          }
          conn.sendOut(out, now, counter.next(hash, type));
        }
      }
    }
  }

  /** The page of match events is delivered: what waited corked goes to each socket, in one write each. */
  endPage(): void {
    for (const conn of this.touched) {
      conn.counter = undefined;
      conn.uncork();
    }
    this.touched.length = 0;
  }

  /** A delivery counted on its own once the transport took it (on the connection, and for the account's licences). */
  counted(conn: LiveConnection, hash: string, type: string | undefined, at: number): Delivered {
    return (ok) => {
      if (!ok) return;
      conn.delivered++;
      this.tally.add(conn.username, hash, type, at, this.realNow);
    };
  }
}
