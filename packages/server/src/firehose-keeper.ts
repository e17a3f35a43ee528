import { DomainError, firehose, FIREHOSE_SWITCH_TYPES, type Engine, type FirehoseState } from '@sdp/core';

/**
 * Keeps switched-on synthetic firehoses fed up to the clock: after every move of the manual clock, and
 * every few seconds on the system clock. The core derives what to feed from the firehose's events and
 * `now`; this only decides when to ask. Accounts with a firehose on are found once at start by reading
 * the store, then tracked as the operator switches them.
 */
export class FirehoseKeeper {
  private on = new Set<string>();
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
    for (let after = 0; ; ) {
      const page = await this.engine.store.readTypes(FIREHOSE_SWITCH_TYPES, after, 1_000);
      if (page.length === 0) break;
      for (const e of page) {
        if (!e.stream.startsWith('firehose:')) continue;
        if (e.type === 'FirehoseSwitchedOn') last.set(e.stream.slice('firehose:'.length), true);
        if (e.type === 'FirehoseSwitchedOff') last.set(e.stream.slice('firehose:'.length), false);
      }
      after = page[page.length - 1]!.position;
    }
    for (const [username, isOn] of last) if (isOn) this.on.add(username);
  }

  async switchOn(username: string, options: unknown): Promise<FirehoseState> {
    await firehose.switchOn(this.engine, username, options);
    this.on.add(username);
    await this.catchUp(username);
    return firehose.state(this.engine, username);
  }

  async switchOff(username: string): Promise<FirehoseState> {
    await this.catchUp(username);
    const state = await firehose.switchOff(this.engine, username);
    this.on.delete(username);
    return state;
  }

  async state(username: string): Promise<FirehoseState> {
    await this.catchUp(username);
    return firehose.state(this.engine, username);
  }

  /**
   * Feeds every switched-on firehose up to now; runs one at a time. Accounts take turns a chunk each,
   * with a turn of the event loop between chunks: after a long move of the clock, a day of one firehose
   * neither holds the loop nor makes another account's wait for it.
   */
  catchUpAll(): Promise<void> {
    this.running = this.running.then(async () => {
      let failed = false;
      const until = this.engine.clock.now();
      for (let turn = [...this.on]; turn.length > 0; ) {
        const again: string[] = [];
        for (const username of turn) {
          try {
            if (await firehose.catchUpStep(this.engine, username, until)) again.push(username);
          } catch (error) {
            // The account is gone (reset): nothing left to feed. Anything else (the store away) leaves the
            // firehose on, to be fed from where it stopped on the next round.
            if (error instanceof DomainError && error.status === 404) this.on.delete(username);
            else {
              failed = true;
              this.onError(error);
            }
          }
          await this.yieldTurn();
        }
        turn = again;
      }
      if (!failed) this.onRound();
    });
    return this.running;
  }

  private catchUp(username: string): Promise<void> {
    this.running = this.running.then(async () => {
      const until = this.engine.clock.now();
      while (await firehose.catchUpStep(this.engine, username, until)) await this.yieldTurn();
    });
    return this.running;
  }

  forgetAll(): void {
    this.on.clear();
  }

  /** Feeds on a timer (system clock). */
  every(ms: number): void {
    this.timer = setInterval(() => void this.catchUpAll().catch(() => undefined), ms);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.running.catch(() => undefined);
  }
}
