import { accountOfStream, asPlatformEvent, DomainError, type Engine } from '@sdp/core';
import { firehose, FIREHOSE_SWITCH_TYPES, type FirehoseProgress, type FirehoseState } from '@sdp/core/internal';
import { LogProcessor } from '@sdp/core/kernel';

/**
 * Keeps switched-on synthetic firehoses fed up to the clock: after every move of the manual clock, and
 * every few seconds on the system clock. The core derives what to feed from the firehose's events and
 * `now`; this only decides when to ask. Accounts with a firehose on are found once at start by reading
 * the store, then tracked as the operator switches them.
 *
 * Timed rounds hold how far each firehose got past its last mark in memory (`FirehoseProgress`), so a
 * firehose whose minutes match nothing writes a mark every `FIREHOSE_MARK_SPAN_MS` of fed time rather
 * than every round; the marks are written out before a switch, after a move of the manual clock, and
 * when the keeper stops. A crash loses only that progress: the span is fed again from the mark.
 */
export class FirehoseKeeper {
  private on = new Set<string>();
  private progress = new Map<string, FirehoseProgress>();
  private running: Promise<void> = Promise.resolve();
  private timer: NodeJS.Timeout | undefined;

  /** `yieldTurn` gives the event loop a turn between two chunks (the server passes `setImmediate`). */
  constructor(
    private readonly engine: Engine,
    private readonly yieldTurn: () => Promise<void> = async () => undefined,
    /** Told of a round's failure other than an account gone (the store away, say); the firehose stays on. */
    private readonly onError: (error: unknown) => void = () => undefined,
    /** Told after a round that fed every switched-on firehose it could. */
    private readonly onRound: () => void = () => undefined,
  ) {}

  /**
   * Finds the accounts whose firehose was left on (a restart over a durable store), reading only the
   * switch events: start-up never reads the whole log, whatever the tenants wrote into it.
   */
  async recover(): Promise<void> {
    const last = new Map<string, boolean>();
    const switches = new LogProcessor(
      this.engine.store,
      (page) => {
        for (const stored of page) {
          const e = asPlatformEvent(stored);
          const username = accountOfStream(stored.stream);
          if (username === undefined) continue;
          if (e?.type === 'FirehoseSwitchedOn') last.set(username, true);
          if (e?.type === 'FirehoseSwitchedOff') last.set(username, false);
        }
      },
      { types: FIREHOSE_SWITCH_TYPES, after: 0 },
    );
    await switches.catchUp();
    for (const [username, isOn] of last) if (isOn) this.on.add(username);
  }

  async switchOn(username: string, options: unknown): Promise<FirehoseState> {
    // The progress held is written out first: a switch-on's backfill starts at the mark, never before it.
    await this.serially(async () => {
      await this.markFed(username);
      await firehose.switchOn(this.engine, username, options);
      this.progress.delete(username);
      this.on.add(username);
    });
    await this.catchUp(username);
    return this.state(username);
  }

  async switchOff(username: string): Promise<FirehoseState> {
    await this.catchUp(username);
    return this.serially(async () => {
      await this.markFed(username);
      const state = await firehose.switchOff(this.engine, username);
      this.progress.delete(username);
      this.on.delete(username);
      return state;
    });
  }

  /** The firehose's state, fed up to now; `fedUntil` counts the progress held past its last mark. */
  async state(username: string): Promise<FirehoseState> {
    await this.catchUp(username);
    const state = await firehose.state(this.engine, username);
    const held = this.progress.get(username);
    return held && state.on && held.mark === state.fedUntil && held.until > state.fedUntil ? { ...state, fedUntil: held.until } : state;
  }

  /**
   * Feeds every switched-on firehose up to now; runs one at a time. Accounts take turns a chunk each,
   * with a turn of the event loop between chunks: after a long move of the clock, a day of one firehose
   * neither holds the loop nor makes another account's wait for it. With `mark` (a move of the manual
   * clock) each firehose's mark is written out at the end; the timer's rounds hold it in memory.
   */
  catchUpAll(mark = true): Promise<void> {
    return this.serially(async () => {
      let failed = false;
      const until = this.engine.clock.now();
      const fails = (username: string, error: unknown) => {
        // The account is gone (reset): nothing left to feed. Anything else (the store away) leaves the
        // firehose on, to be fed from where it stopped on the next round.
        if (error instanceof DomainError && error.status === 404) {
          this.on.delete(username);
          this.progress.delete(username);
        } else {
          failed = true;
          this.onError(error);
        }
      };
      for (let turn = [...this.on]; turn.length > 0; ) {
        const again: string[] = [];
        for (const username of turn) {
          try {
            if (await this.step(username, until)) again.push(username);
          } catch (error) {
            fails(username, error);
          }
          await this.yieldTurn();
        }
        turn = again;
      }
      if (mark) {
        for (const username of [...this.progress.keys()]) {
          try {
            await this.markFed(username);
          } catch (error) {
            fails(username, error);
          }
        }
      }
      if (!failed) this.onRound();
    });
  }

  private catchUp(username: string): Promise<void> {
    return this.serially(async () => {
      const until = this.engine.clock.now();
      while (await this.step(username, until)) await this.yieldTurn();
    });
  }

  /** One chunk from the progress held; whether there was one. */
  private async step(username: string, until: number): Promise<boolean> {
    const step = await firehose.catchUpStep(this.engine, username, until, this.progress.get(username) ?? null);
    if (!step) return false;
    if (step.progress.until > step.progress.mark) this.progress.set(username, step.progress);
    else this.progress.delete(username);
    return true;
  }

  private async markFed(username: string): Promise<void> {
    const held = this.progress.get(username);
    if (!held) return;
    await firehose.mark(this.engine, username, held);
    this.progress.delete(username);
  }

  /** Rounds, catch-ups and switches run one at a time, each after the last, whether or not it failed. */
  private serially<T>(work: () => Promise<T>): Promise<T> {
    const next = this.running.then(work, work);
    this.running = next.then(
      () => undefined,
      () => undefined,
    );
    return next;
  }

  forgetAll(): void {
    this.on.clear();
    this.progress.clear();
  }

  /** Feeds on a timer (system clock), holding each firehose's progress past its mark in memory. */
  every(ms: number): void {
    this.timer = setInterval(() => void this.catchUpAll(false).catch(() => undefined), ms);
    this.timer.unref();
  }

  /** Stops the timer and writes out the progress held, so a restart resumes where this keeper stopped. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.serially(async () => {
      for (const username of [...this.progress.keys()]) await this.markFed(username).catch(() => undefined);
    }).catch(() => undefined);
  }
}
