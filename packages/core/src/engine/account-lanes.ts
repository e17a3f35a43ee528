/**
 * Calls of one account run one after another within this engine. They all write that account's credit
 * stream, so running them side by side only makes all but one fail their append and retry (at 16 parallel
 * connections, about 30 wasted attempts per answer). Different accounts still run side by side, and
 * several processes over one store still meet the store's version check (and the engine's retry).
 */
export class AccountLanes {
  private tails = new Map<string, Promise<unknown>>();

  run<T>(key: string | undefined, work: () => Promise<T>): Promise<T> {
    if (key === undefined) return work();
    const prior = this.tails.get(key);
    const result = prior ? prior.then(work, work) : work();
    const tail = result.catch(() => undefined);
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return result;
  }

  /** Accounts with calls running or waiting (for tests and metrics). */
  get busy(): number {
    return this.tails.size;
  }
}
