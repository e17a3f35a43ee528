import type { AggregateLoader } from '../kernel/aggregates.ts';
import { StoreUnavailable, appendsAtOnce, type EventStore } from '../kernel/event-store.ts';
import type { AppendResult, StreamAppend } from '../kernel/events.ts';
import type { Clock, Ids } from '../kernel/ports.ts';
import { UnitOfWork } from '../kernel/unit-of-work.ts';
import { VersionConflict } from '../kernel/version-conflict.ts';
import type { WritePolicy } from '../kernel/write-policy.ts';
import { AccountLanes } from './account-lanes.ts';

/**
 * A judge's word on one attempt: an answer (and whether the unit's events are written, or only its read
 * guards sent), or "I must queue for my account's lane" (`LaneQueue`): what it read before waiting may
 * have moved meanwhile, so the loop waits for the turn and has it judge again from the start.
 */
export type Verdict<T> = Decided<T> | LaneQueue;

export interface Decided<T> {
  readonly answer: T;
  /** True: the unit's events and guards are appended. False: only its guards (a refusal writes nothing). */
  readonly write: boolean;
  readonly queued?: undefined;
}

export interface LaneQueue {
  /** Settles when the lane is this attempt's; the judge is then asked again, holding it. */
  readonly queued: Promise<void>;
}

/** `AttemptLoop.ended`'s word for "try again". */
const RETRY: unique symbol = Symbol('retry');

/** Why the attempts ended without an answer of the judge's own. */
export type GaveUp = 'conflicts' | 'store-away' | 'failure';

/**
 * What `Engine.call` and `Engine.command` hand the attempt loop: how to decide one attempt on the states
 * a fresh unit of work reads, and what to answer when the attempts end in an error.
 */
export interface Judge<T> {
  /** A value when the judge could answer at once (the loop then spends no turn of the microtask queue on it). */
  judge(uow: UnitOfWork, lane: LaneHold): Verdict<T> | Promise<Verdict<T>>;
  /**
   * The answer when the attempts end in `error`: every attempt lost to another writer (`conflicts`), the
   * store away, or any other failure. Nothing was written. A command throws `error` again.
   */
  gaveUp(error: unknown, why: GaveUp): T;
  /** Told once the attempts are over, answered or not (the lane is already left). */
  done?(): void;
  /**
   * Told when a writing verdict's append is durable, before its answer: what was appended and where.
   * The judge reads the batch only if it needs to (the common call pays a method call, no more).
   */
  wrote?(batch: readonly StreamAppend[], result: AppendResult): void;
}

/**
 * The lane one run holds, if any: entered by the judge once it knows whose call it is (after
 * authentication), left by the loop (see `AttemptLoop.run`).
 */
export class LaneHold {
  private account: string | undefined = undefined;
  constructor(private readonly lanes: AccountLanes) {}

  /**
   * Takes the account's lane: `undefined` when it is now held (free, or held already by this run), else a
   * queue the judge hands back as its verdict.
   */
  enter(account: string): LaneQueue | undefined {
    if (this.account !== undefined) return undefined;
    this.account = account;
    const turn = this.lanes.enter(account);
    return turn ? { queued: turn } : undefined;
  }

  leave(): void {
    if (this.account === undefined) return;
    this.lanes.leave(this.account);
    this.account = undefined;
  }
}

/**
 * The pause before attempt `attempt + 1`, after `attempt` attempts lost to another writer: up to 1 ms
 * doubling to at most 64 ms, drawn uniformly below that bound ("full jitter"), so writers that collided
 * do not collide again in step. `unit` is a draw in [0, 1) from the ids port (the core has no randomness).
 */
export function retryPauseMs(attempt: number, unit: number): number {
  const bound = Math.min(64, 2 ** (attempt - 1));
  return Math.floor(unit * bound * 1000) / 1000;
}

/** The core's class, or an adapter's own error of that name (a second copy of the core in a bundle). */
export function isStoreUnavailable(error: unknown): boolean {
  return error instanceof StoreUnavailable || (error instanceof Error && error.name === 'StoreUnavailable');
}

/**
 * What this engine's attempt loop has done since it started: how contended its accounts' streams are.
 * Retries are `conflicts - gaveUp.conflicts`; attempts are `runs + conflicts - gaveUp.conflicts`.
 */
export interface AttemptCounts {
  /** Calls and commands run (each answered once). */
  runs: number;
  /** Attempts whose append another writer beat (`VersionConflict`), each followed by a retry or a 503. */
  conflicts: number;
  /** Attempts that queued for their account's lane behind another of this engine's calls. */
  laneWaits: number;
  gaveUp: { conflicts: number; storeAway: number; failure: number };
}

export interface AttemptLoopOptions {
  store: EventStore;
  loader: AggregateLoader;
  clock: Clock;
  ids: Ids;
  /** Read at each conflict (`EngineSettings.maxAttempts`). */
  settings: { readonly maxAttempts: number };
  /** `pipelines`: states go to the cache, and the lane is left, before the write is durable. */
  policy: Pick<WritePolicy, 'pipelines'>;
  wait?: ((ms: number) => Promise<void>) | undefined;
  onStoreAway?: ((error: unknown) => void) | undefined;
  onStoreBack?: (() => void) | undefined;
}

/**
 * The one way a decision reaches the store, for calls and commands alike. One run:
 *
 * 1. A fresh `UnitOfWork` (the clock read once: the attempt's `now`), and the judge decides on the states
 *    it reads. A judge that must queue for its account's lane says so (`LaneQueue`); the loop waits for
 *    the turn and asks again on a fresh unit, so nothing read before the wait stands.
 * 2. The unit's appends (a writing verdict) or only its read guards (a refusal); none: answered.
 * 3. Pipelined (`WritePolicy.pipelines`): the new states go to the loader's cache marked pending
 *    (`StateCache.pending`), so the account's next call decides on them at once.
 * 4. One atomic `append`; pipelined, the lane is left as soon as it is asked (the store acknowledges
 *    writes in the order asked, and a write decided on a pending state names the event it expects).
 * 5. The append fails: every state it put in the cache, and every pending state it read, is dropped
 *    (`failed`), and the error goes to 7.
 * 6. The append is durable: not pipelined, the states go to the cache now; they stop being pending
 *    (`durable`), snapshots due are written; the store is back if it was away; the judge's answer.
 * 7. A `VersionConflict` (another writer moved a stream the attempt read): the lane is left, a pause
 *    drawn below a doubling bound (`retryPauseMs`), back to 1, at most `maxAttempts` times; then, or on
 *    the store away or any other error, the judge's `gaveUp` answers. The lane is always left.
 *
 * The state cache's side of this protocol is `StateCache.pending`, `durable` and `failed`
 * (`kernel/state-cache.ts`), over the unit's entries; nothing else calls them.
 */
export class AttemptLoop {
  private readonly lanes = new AccountLanes();
  /** Whether the last run found the store away (so its return is told once). */
  private storeAway = false;
  private readonly counted: AttemptCounts = { runs: 0, conflicts: 0, laneWaits: 0, gaveUp: { conflicts: 0, storeAway: 0, failure: 0 } };

  constructor(private readonly o: AttemptLoopOptions) {
    this.appendNow = appendsAtOnce(o.store);
  }

  /**
   * Runs `judge` until an answer is durable or the attempts end: the answer as a value when the first
   * attempt waited on nothing (the judge answered at once, the store writes within the call:
   * `appendsAtOnce`), else a promise (`runLater` carries on from the first step that answered with one).
   * Same steps, same order, either way; the common call on the memory store spends no promise and no turn
   * of the microtask queue.
   */
  run<T>(judge: Judge<T>): T | Promise<T> {
    const o = this.o;
    this.counted.runs++;
    const lane = new LaneHold(this.lanes);
    const appendNow = this.appendNow;
    let uow: UnitOfWork | undefined;
    let answer: T;
    try {
      uow = new UnitOfWork(o.loader, o.ids, o.clock);
      const judged = judge.judge(uow, lane);
      if (judged instanceof Promise || judged.queued !== undefined || appendNow === undefined) return this.runLater(judge, lane, uow, judged);
      const verdict = judged;
      answer = verdict.answer;
      const write = verdict.write;
      const appends = write ? uow.appends() : uow.guards();
      if (appends.length > 0) {
        const pipelined = o.policy.pipelines;
        const states = o.loader.states;
        if (write && pipelined) states.pending(uow.entries());
        let result: AppendResult;
        try {
          result = appendNow(appends);
        } catch (error) {
          states.failed(uow.entries());
          throw error;
        }
        if (pipelined) lane.leave();
        if (write) {
          const snapshots = this.durable(judge, uow, appends, result);
          if (snapshots) return this.answerAfter(snapshots, answer, judge, lane);
        }
      }
      if (this.storeAway) this.storeReturned();
    } catch (error) {
      // The first attempt ended in an error: the loop's own path decides what follows (a retry, or gaveUp).
      return this.runLater(judge, lane, uow, Promise.reject(error));
    }
    lane.leave();
    judge.done?.();
    return answer;
  }

  /** The store's append as a value, where it writes within the call (`appendsAtOnce`). */
  private readonly appendNow: ((batch: StreamAppend[]) => AppendResult) | undefined;

  /**
   * `run` from its first attempt's verdict (`first`, a value or a promise, on `firstUnit`) on: every wait
   * is awaited here. The attempt is written here rather than in a function of its own: an async frame and
   * a turn of the event loop fewer on every call that waits.
   */
  private async runLater<T>(judge: Judge<T>, lane: LaneHold, firstUnit: UnitOfWork | undefined, first: Verdict<T> | Promise<Verdict<T>>): Promise<T> {
    const o = this.o;
    const counted = this.counted;
    const pipelined = o.policy.pipelines;
    const states = o.loader.states;
    try {
      for (let attempt = 1; ; attempt++) {
        try {
          let uow: UnitOfWork;
          let judged: Verdict<T> | Promise<Verdict<T>>;
          if (attempt === 1) {
            // No unit: making it failed, and `first` is that failure.
            judged = first;
            uow = firstUnit!;
          } else {
            uow = new UnitOfWork(o.loader, o.ids, o.clock);
            judged = judge.judge(uow, lane);
          }
          let verdict = judged instanceof Promise ? await judged : judged;
          while (verdict.queued !== undefined) {
            counted.laneWaits++;
            await verdict.queued;
            uow = new UnitOfWork(o.loader, o.ids, o.clock);
            judged = judge.judge(uow, lane);
            verdict = judged instanceof Promise ? await judged : judged;
          }
          const write = verdict.write;
          const appends = write ? uow.appends() : uow.guards();
          if (appends.length > 0) {
            if (write && pipelined) states.pending(uow.entries());
            let result: AppendResult;
            // An append that throws rather than rejects fails as one that rejects: its states are dropped.
            try {
              const written = o.store.append(appends);
              // Over a shared store that cannot name the event a write expects, the lane is held until the
              // write is settled (left in `finally`).
              if (pipelined) lane.leave();
              result = await written;
            } catch (error) {
              states.failed(uow.entries());
              throw error;
            }
            if (write) {
              const snapshots = this.durable(judge, uow, appends, result);
              if (snapshots) await snapshots;
            }
          }
          if (this.storeAway) this.storeReturned();
          return verdict.answer;
        } catch (error) {
          lane.leave();
          const ended = this.ended(error, attempt, judge);
          if (ended !== RETRY) return ended;
          await this.pause(attempt);
        }
      }
    } finally {
      lane.leave();
      judge.done?.();
    }
  }

  /**
   * A writing verdict's append is durable (6): the judge told, the unit's states in the cache (now, when
   * not pipelined) and no longer pending; the snapshots due, as a promise, when there are any.
   */
  private durable<T>(judge: Judge<T>, uow: UnitOfWork, appends: StreamAppend[], result: AppendResult): Promise<void> | undefined {
    judge.wrote?.(appends, result);
    const entries = uow.entries();
    const states = this.o.loader.states;
    if (!this.o.policy.pipelines) states.pending(entries);
    return states.durable(entries);
  }

  /** A written answer once the snapshots its write made due are written (`StateCache.durable`). */
  private async answerAfter<T>(snapshots: Promise<void>, answer: T, judge: Judge<T>, lane: LaneHold): Promise<T> {
    try {
      await snapshots;
      if (this.storeAway) this.storeReturned();
      return answer;
    } catch (error) {
      lane.leave();
      // The write is durable: nothing is tried again, whatever the error.
      const ended = this.ended(error, Infinity, judge);
      return ended === RETRY ? judge.gaveUp(error, 'failure') : ended;
    } finally {
      lane.leave();
      judge.done?.();
    }
  }

  /**
   * What an attempt that ended in `error` comes to: another attempt (`RETRY`: another writer won, and
   * attempts are left), or the judge's answer for the attempts' end.
   */
  private ended<T>(error: unknown, attempt: number, judge: Judge<T>): T | typeof RETRY {
    const counted = this.counted;
    if (error instanceof VersionConflict) {
      counted.conflicts++;
      if (attempt < this.o.settings.maxAttempts) return RETRY;
      counted.gaveUp.conflicts++;
      return judge.gaveUp(error, 'conflicts');
    }
    if (isStoreUnavailable(error)) {
      counted.gaveUp.storeAway++;
      this.storeWentAway(error);
      return judge.gaveUp(error, 'store-away');
    }
    counted.gaveUp.failure++;
    return judge.gaveUp(error, 'failure');
  }

  /** Waits before the next attempt after `attempt` lost to another writer (through the `wait` port). */
  private pause(attempt: number): Promise<void> | undefined {
    if (!this.o.wait) return undefined;
    // Eight hex digits from the ids port: a uniform draw in [0, 1).
    return this.o.wait(retryPauseMs(attempt, parseInt(this.o.ids.hex(8), 16) / 2 ** 32));
  }

  /** The first run that finds the store away tells the operator; the others stay quiet. */
  private storeWentAway(error: unknown): void {
    if (this.storeAway) return;
    this.storeAway = true;
    this.o.onStoreAway?.(error);
  }

  private storeReturned(): void {
    this.storeAway = false;
    this.o.onStoreBack?.();
  }

  /** A copy of the counts so far. */
  counts(): AttemptCounts {
    return { ...this.counted, gaveUp: { ...this.counted.gaveUp } };
  }

  /** Accounts with a run holding or waiting for their lane (for tests and metrics). */
  get busyLanes(): number {
    return this.lanes.busy;
  }
}
