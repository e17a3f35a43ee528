import { isStoreUnavailable } from '@sdp/core';

/**
 * One line when the store goes away and one when it is back, per process, whoever meets it first: the
 * engine (a call answered 503), the push or firehose keeper (a round that could not read the log), or a
 * call that succeeds again. Without it every keeper round and every failed step printed a stack.
 */
export class StoreOutageLog {
  private away = false;

  constructor(
    private readonly sayAway: (error: unknown) => void,
    private readonly sayBack: () => void,
  ) {}

  wentAway(error: unknown): void {
    if (this.away) return;
    this.away = true;
    this.sayAway(error);
  }

  cameBack(): void {
    if (!this.away) return;
    this.away = false;
    this.sayBack();
  }

  /** An error handler that reports the store going away here, and hands anything else to `onError`. */
  errors(onError: (error: unknown) => void): (error: unknown) => void {
    return (error) => (isStoreUnavailable(error) ? this.wentAway(error) : onError(error));
  }
}
