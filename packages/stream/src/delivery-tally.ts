import { MAX_LICENCE_TYPES, STREAM_USAGE_KEPT_MS, type DeliveredCounts } from '@sdp/core/internal';

const MINUTE = 60_000;

/**
 * The interactions this process has delivered (written to their connections) and not yet recorded, per
 * account, as counts by minute, hash and licence type: what `/usage` reports as `licenses`. Counting is
 * in memory, one increment a delivery; the host records an account's counts in one write when a minute
 * it counted has ended, after a bounded real time, at an unsubscribe and at a disconnect. Counts whose
 * write failed come back (`restore`), so nothing is lost while the process lives; a minute older than
 * `/usage` can report is let go, so an unreachable store does not make the tally grow for ever.
 */
export class DeliveryTally {
  private readonly byAccount = new Map<string, { counts: DeliveredCounts; since: number }>();
  /** The last minute counted and its key (one delivery after another mostly falls in the same). */
  private lastMinute = NaN;
  private lastKey = '';

  /** One interaction of `type` (its licence type, if any) delivered for `hash` at clock time `at`. */
  /** `realNow`: the real time, or how to read it (read only when the account had nothing held). */
  add(username: string, hash: string, type: string | undefined, at: number, realNow: number | (() => number)): void {
    let held = this.byAccount.get(username);
    if (!held) this.byAccount.set(username, (held = { counts: {}, since: typeof realNow === 'number' ? realNow : realNow() }));
    const start = at - (at % MINUTE);
    if (start !== this.lastMinute) {
      this.lastMinute = start;
      this.lastKey = String(start);
    }
    const byHash = (held.counts[this.lastKey] ??= {});
    const licences = (byHash[hash] ??= {});
    licences.interaction = (licences.interaction ?? 0) + 1;
    // A type beyond the bound (data that names many) still counts as an interaction.
    if (type !== undefined && (licences[type] !== undefined || Object.keys(licences).length < MAX_LICENCE_TYPES)) licences[type] = (licences[type] ?? 0) + 1;
  }

  /** The account's counts, now no longer held (undefined when there are none). */
  take(username: string): DeliveredCounts | undefined {
    const held = this.byAccount.get(username);
    this.byAccount.delete(username);
    return held?.counts;
  }

  /** Counts whose write failed, held again (added to any counted since), bar minutes `/usage` no longer reads. */
  restore(username: string, counts: DeliveredCounts, at: number, realNow: number): void {
    const horizon = at - STREAM_USAGE_KEPT_MS;
    for (const [minute, byHash] of Object.entries(counts)) {
      if (Number(minute) < horizon) continue;
      let held = this.byAccount.get(username);
      if (!held) this.byAccount.set(username, (held = { counts: {}, since: realNow }));
      const heldByHash = (held.counts[minute] ??= {});
      for (const [hash, licences] of Object.entries(byHash)) {
        const l = (heldByHash[hash] ??= {});
        for (const [type, n] of Object.entries(licences)) {
          if (l[type] === undefined && type !== 'interaction' && Object.keys(l).length >= MAX_LICENCE_TYPES) continue;
          l[type] = (l[type] ?? 0) + n;
        }
      }
    }
  }

  /**
   * Accounts whose counts are due a write: one holds a minute that has ended on the clock (`at`), or
   * has held counts for `maxHeldMs` of real time (a clock that does not move, the manual one).
   */
  due(at: number, realNow: number, maxHeldMs: number): string[] {
    const current = Math.floor(at / MINUTE) * MINUTE;
    const out: string[] = [];
    for (const [username, held] of this.byAccount) {
      if (realNow - held.since >= maxHeldMs || Object.keys(held.counts).some((minute) => Number(minute) < current)) out.push(username);
    }
    return out;
  }

  accounts(): string[] {
    return [...this.byAccount.keys()];
  }

  clear(): void {
    this.byAccount.clear();
  }
}

/** What a counter counts deliveries on: a connection's own figure, and the account it belongs to. */
export interface CountedConnection {
  delivered: number;
  readonly username: string;
}

/**
 * Counts what one page of matches sent one connection, as the transport takes it: every message shares
 * one callback (`next` returns it), and the transport answers a connection's messages in the order they
 * were written, each once, so the n-th answer is the n-th message's. One object a connection and page,
 * not a callback a message: callbacks held until the socket takes their frame were once most of the
 * fan-out's garbage.
 */
export class DeliveryCounter {
  private readonly hashes: string[] = [];
  private readonly types: (string | undefined)[] = [];
  private answered = 0;
  private readonly done = (ok: boolean): void => {
    const i = this.answered++;
    if (!ok) return;
    this.conn.delivered++;
    this.tally.add(this.conn.username, this.hashes[i]!, this.types[i], this.at, this.realNow);
  };

  constructor(
    private readonly conn: CountedConnection,
    private readonly at: number,
    private readonly tally: DeliveryTally,
    private readonly realNow: () => number,
  ) {}

  /** The callback of the next message written for `hash` (an interaction of licence `type`). */
  next(hash: string, type: string | undefined): (ok: boolean) => void {
    this.hashes.push(hash);
    this.types.push(type);
    return this.done;
  }
}
