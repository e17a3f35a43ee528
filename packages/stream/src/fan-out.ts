import { licenceTypeOf, type MatchedEvent } from '@sdp/core/internal';
import { accountOfStream } from '@sdp/core';
import type { DeliveryTally } from './delivery-tally.ts';
import type { Delivered, LiveConnection } from './live-connection.ts';
import { messageText } from './stream-answers.ts';
import { relayNoticeMessages, slowFailure } from './stream-messages.ts';

/** Matches held for one subscription while it is being decided, at most. */
const MAX_HELD = 10_000;

/**
 * Who receives what an account matched: an index from each subscribed hash to its connections on this
 * process, kept as subscriptions begin and end, so delivering a match costs the connections that get it
 * and nothing for those that do not. Each interaction's JSON is made once, and each message text once
 * for the wrapped and once for the bare form, whatever the number of connections that get it.
 */
export class FanOut {
  private readonly byAccount = new Map<string, Map<string, Set<LiveConnection>>>();

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

  /** Sends one match event to the subscriptions it is for (those begun at or before the version it was decided on). */
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
    // One counter per connection for all it is sent of this event (not a callback each: held until the
    // socket takes its frame, thousands of them were most of the fan-out's garbage).
    const counters = new Map<LiveConnection, DeliveryCounter>();
    for (const item of stored.data.items) {
      let json: string | undefined;
      let type: string | undefined | null = null;
      for (const hash of item.hashes) {
        const conns = hashes.get(hash);
        if (!conns) continue;
        let bare: string | undefined;
        let wrapped: string | undefined;
        for (const conn of conns) {
          const sub = conn.subs.get(hash);
          if (!sub || conn.closed) continue;
          if (sub.seq !== undefined && seq < sub.seq) continue;
          json ??= JSON.stringify(item.interaction);
          if (type === null) type = licenceTypeOf(item.interaction);
          const text = conn.wrapped ? (wrapped ??= messageText(hash, item.interaction, json, true)) : (bare ??= messageText(hash, item.interaction, json, false));
          if (sub.seq === undefined) {
            // Held while the subscription is decided; a decision that takes for ever (the store away)
            // does not make the server hold for ever: past the bound the connection is cut as slow.
            // Sent later than the rest, so counted on its own.
            sub.held.push({ seq, text, done: this.counted(conn, hash, type, now) });
            if (sub.held.length > MAX_HELD) {
              conn.send(slowFailure(), now);
              this.cut(conn, 'slow consumer');
            }
            continue;
          }
          let counter = counters.get(conn);
          if (!counter) counters.set(conn, (counter = new DeliveryCounter(conn, now, this.tally, this.realNow)));
          conn.sendText(text, now, counter.next(hash, type));
        }
      }
    }
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
