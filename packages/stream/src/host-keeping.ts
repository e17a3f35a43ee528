import { MATCHED_TYPE, RELAY_STREAM_PREFIX, DEFAULT_LAPSE_MS, type StreamHosting } from '@sdp/core/internal';
import { type Engine } from '@sdp/core';
import type { Clock } from '@sdp/core/kernel';

export interface HostKeepingOptions {
  engine: Engine;
  clock: Clock;
  /** `false`: this process is the store's sole server, with nobody else to find it dead. */
  liveness: false | { renewMs?: number; lapseMs?: number; sweepMs?: number } | undefined;
  matchesKeptMs: number;
  realNow: () => number;
  onError: (error: unknown) => void;
}

/** Real time between looks at the log's head, for dropping the matches older than they are kept. */
const DROP_CHECK_MS = 30_000;

/**
 * What this process keeps up as a host of stream connections, beside serving them: its liveness record
 * on a store several processes share (renewed, and others' swept by `sweep`), and the relay's matches
 * dropped from the log once every follower has read them.
 */
export class HostKeeping {
  readonly hosting: StreamHosting | undefined;
  private readonly renewMs: number;
  readonly sweepMs: number;
  private renewer: NodeJS.Timeout | undefined;
  /** Since when (real time) this host's renewals have gone through without a break. */
  private renewedSince: number | undefined;
  /** The log's head as seen at real times, oldest first: what is older than `matchesKeptMs` is dropped up to it. */
  private readonly heads: { at: number; head: number }[] = [];
  private lastHeadCheck = -Infinity;
  private dropping = false;

  constructor(private readonly o: HostKeepingOptions) {
    const liveness = o.liveness === false ? undefined : o.engine.store.capabilities.hostRecords;
    const pace = o.liveness || {};
    const lapseMs = pace.lapseMs ?? DEFAULT_LAPSE_MS;
    this.renewMs = pace.renewMs ?? 1_000;
    this.sweepMs = pace.sweepMs ?? lapseMs;
    this.hosting = liveness && {
      host: o.engine.ids.hex(16),
      liveness,
      lapseMs,
      mayJudge: () => this.renewedSince !== undefined && performance.now() - this.renewedSince >= lapseMs,
    };
  }

  /** Renews this process's liveness record now and every `renewMs` (real time): one small write, not an event. */
  async start(): Promise<void> {
    const hosting = this.hosting;
    if (!hosting) return;
    const renew = async () => {
      try {
        await hosting.liveness.renew(hosting.host, this.o.clock.now());
        this.renewedSince ??= performance.now();
      } catch (error) {
        this.renewedSince = undefined;
        throw error;
      }
    };
    await renew();
    this.renewer = setInterval(() => void renew().catch((e) => this.o.onError(e)), this.renewMs);
    this.renewer.unref();
  }

  /** After the operator's reset (which emptied the liveness records with the log). */
  async afterReset(): Promise<void> {
    this.heads.length = 0;
    if (this.hosting) await this.hosting.liveness.renew(this.hosting.host, this.o.clock.now());
  }

  async stop(): Promise<void> {
    clearInterval(this.renewer);
    // Its connections ended, nothing is left for a sweep to find.
    if (this.hosting) await this.hosting.liveness.forget(this.hosting.host);
  }

  /**
   * Drops from the log the matches older than `matchesKeptMs` of real time: every process that follows
   * the log read them within about a second. Positions are remembered as the head moves, so what is
   * dropped is what was already in the log that long ago. Looks at most every 30 s. Only the relay's
   * streams: the matches builds before the relay wrote into an account's own aggregate are its state.
   */
  async dropOldMatches(): Promise<void> {
    const realNow = this.o.realNow();
    if (realNow - this.lastHeadCheck < DROP_CHECK_MS) return;
    this.lastHeadCheck = realNow;
    const store = this.o.engine.store;
    if (!store.dropTypes || this.dropping) return;
    this.dropping = true;
    try {
      this.heads.push({ at: realNow, head: await store.head() });
      let through: number | undefined;
      while (this.heads.length > 0 && realNow - this.heads[0]!.at >= this.o.matchesKeptMs) through = this.heads.shift()!.head;
      if (through !== undefined && through > 0) await store.dropTypes([MATCHED_TYPE], through, RELAY_STREAM_PREFIX);
    } catch (error) {
      this.o.onError(error);
    } finally {
      this.dropping = false;
    }
  }
}
