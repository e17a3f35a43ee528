/**
 * Calls of one account run one after another within this engine. They all write that account's credit
 * stream, so running them side by side only makes all but one fail their append and retry (at 16 parallel
 * connections, about 30 wasted attempts per answer). Different accounts still run side by side, and
 * several processes over one store still meet the store's version check (and the engine's retry).
 */
export class AccountLanes {
  /** Per account with a call running: the calls waiting behind it, first come first served (`null`: none yet). */
  private waiting = new Map<string, (() => void)[] | null>();
  /**
   * The account whose lane was freed last keeps its entry (no delete and re-insert when the same account
   * calls again, the common case for a busy client); it counts as free.
   */
  private idle: string | undefined;

  async run<T>(key: string | undefined, work: () => Promise<T>): Promise<T> {
    if (key === undefined) return work();
    const turn = this.enter(key);
    if (turn) await turn;
    try {
      return await work();
    } finally {
      this.leave(key);
    }
  }

  /** Takes the account's lane: nothing when it was free, else a promise that settles on this call's turn. */
  enter(key: string): Promise<void> | undefined {
    if (key === this.idle) {
      this.idle = undefined;
      return undefined;
    }
    const queue = this.waiting.get(key);
    if (queue === undefined) {
      this.waiting.set(key, null);
      return undefined;
    }
    return new Promise<void>((go) => {
      if (queue) queue.push(go);
      else this.waiting.set(key, [go]);
    });
  }

  /** Gives the lane to the next call waiting, or frees it. Every `enter` is followed by one `leave`. */
  leave(key: string): void {
    const queue = this.waiting.get(key);
    const next = queue?.shift();
    if (next) return next();
    if (queue) this.waiting.set(key, null);
    if (this.idle !== undefined) this.waiting.delete(this.idle);
    this.idle = key;
  }

  /** Accounts with calls running or waiting (for tests and metrics). */
  get busy(): number {
    return this.waiting.size - (this.idle === undefined ? 0 : 1);
  }
}
