import { type PushDelivery, type Engine } from '@sdp/core';
import { PUSH_WAKE_EVENT_TYPES, pushWakeAccount } from '@sdp/core/internal';
import { ManualClock, type SystemClock } from '@sdp/clock';
import { LogProcessor } from '@sdp/core/kernel';

/** How often the system clock's keeper looks for new subscriptions and due deliveries. */
export const PUSH_TICK_MS = 1_000;
/** After an unexpected error, a subscription is looked at again this much later. */
const AFTER_ERROR_MS = 60_000;

const keyOf = (username: string, id: string): string => `${username}\n${id}`;

/**
 * Decides when push deliveries run; `PushDelivery` decides what they do. Subscriptions are found by
 * reading the event log from where the keeper last stopped (so a restart over a durable store finds an
 * interrupted batch and sends it again). On the manual clock each subscription's next delivery is work
 * scheduled on the clock, so moving it runs deliveries in time order before the operator call answers; on
 * the system clock a timer starts what is due in the background. Either way no delivery runs under an
 * account's lane or inside a call.
 *
 * A subscription with nothing waiting is not stepped at all (`deliverDue` answers `null`) until something
 * for its account is written: a push or historics event, or interactions recorded. So the work a clock
 * move does follows what there is to deliver, not how far the clock moves times how many subscriptions.
 */
export class PushKeeper {
  /** The events that wake subscriptions, read from where the keeper last stopped; the accounts they name. */
  private readonly wakes: LogProcessor;
  private touched = new Set<string>();
  /** The recording index's checkpoint when the keeper last asked which accounts were fed. */
  private fedAfter = 0;
  /** The discovery under way: the next waits for it, so two never read the same page and plan twice. */
  private discovering: Promise<void> = Promise.resolve();
  /** The time each subscription is next due (manual: the one scheduled item that counts). */
  private readonly due = new Map<string, number>();
  private readonly inFlight = new Map<string, Promise<void>>();
  private timer: NodeJS.Timeout | undefined;
  private ticking: Promise<void> | undefined;

  constructor(
    private readonly engine: Engine,
    private readonly delivery: PushDelivery,
    private readonly clock: ManualClock | SystemClock,
    private readonly onError: (error: unknown) => void = () => undefined,
    /** Told after a round of the system clock's timer that read the log without failing. */
    private readonly onRound: () => void = () => undefined,
  ) {
    this.wakes = new LogProcessor(
      engine.store,
      (page) => {
        for (const e of page) {
          const username = pushWakeAccount(e.stream);
          if (username !== undefined) this.touched.add(username);
        }
      },
      // 1,000 a page: a subscription's event holds up to 32 KiB of settings, so a page stays near 32 MiB.
      { types: PUSH_WAKE_EVENT_TYPES, after: 0, pageSize: 1_000 },
    );
  }

  /**
   * Reads the events that wake subscriptions written since the last look (by type: the rest of the log is
   * not read, nor parsed, every second), and asks the recording index which accounts were fed since; every
   * subscription of such an account is planned now.
   */
  discover(): Promise<void> {
    const run = this.discovering.then(() => this.discoverNow());
    this.discovering = run.catch(() => undefined);
    return run;
  }

  private async discoverNow(): Promise<void> {
    await this.wakes.catchUp();
    const touched = this.touched;
    this.touched = new Set();
    const index = this.engine.recordingIndex;
    await index.catchUp();
    for (const username of index.accountsFedAfter(this.fedAfter)) touched.add(username);
    this.fedAfter = index.checkpoint;
    const now = this.clock.now();
    for (const username of touched) {
      for (const id of await this.delivery.subscriptions(username)) this.plan(username, id, now);
    }
  }

  private plan(username: string, id: string, at: number): void {
    const key = keyOf(username, id);
    const known = this.due.get(key);
    if (known !== undefined && known <= at) return;
    this.due.set(key, at);
    if (this.clock instanceof ManualClock) this.clock.at(at, (t) => this.runScheduled(username, id, at, t));
  }

  /**
   * One delivery step on the manual clock; a stale item (its subscription re-planned since) does nothing.
   * Calls are served while a move runs (the clock yields between steps), so what they wrote is looked
   * for first: an idle subscription they fed is planned at this instant rather than at the next move.
   */
  private async runScheduled(username: string, id: string, plannedAt: number, now: number): Promise<void> {
    await this.discover();
    const key = keyOf(username, id);
    if (this.due.get(key) !== plannedAt) return;
    this.due.delete(key);
    const next = await this.step(username, id, now);
    if (next !== null) this.plan(username, id, Math.max(next, now));
  }

  private async step(username: string, id: string, now: number): Promise<number | null> {
    try {
      return await this.delivery.deliverDue(username, id);
    } catch (error) {
      this.onError(error);
      return now + AFTER_ERROR_MS;
    }
  }

  /** The system clock's round: find what changed, then start every delivery that is due and not already running. */
  private async tick(): Promise<void> {
    await this.discover();
    const now = this.clock.now();
    for (const [key, at] of this.due) {
      if (at > now || this.inFlight.has(key)) continue;
      const [username, id] = key.split('\n') as [string, string];
      this.due.delete(key);
      const run = this.step(username, id, now).then((next) => {
        this.inFlight.delete(key);
        if (next !== null) this.plan(username, id, next);
      });
      this.inFlight.set(key, run);
    }
  }

  /** Runs rounds on a timer (system clock). */
  every(ms: number = PUSH_TICK_MS): void {
    this.timer = setInterval(() => {
      if (this.ticking) return;
      this.ticking = this.tick()
        .then(() => this.onRound())
        .catch((error) => this.onError(error))
        .finally(() => (this.ticking = undefined));
    }, ms);
    this.timer.unref();
  }

  /** Forgets everything (the operator's reset): the log starts again from nothing. */
  forgetAll(): void {
    this.wakes.rewind();
    this.touched.clear();
    this.fedAfter = 0;
    this.due.clear();
  }

  /** Stops the timer and waits for deliveries on their way. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.ticking;
    await Promise.all(this.inFlight.values());
  }
}
