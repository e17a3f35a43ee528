import type { Clock } from '@sdp/core/kernel';
import { Scheduler } from './scheduler.ts';

export class ClockError extends Error {
  readonly status = 400;
}

/**
 * A virtual clock that moves only when told, never backwards. Work scheduled on it runs in time order as
 * it advances, with the clock reading each piece of work's own time while that work runs.
 */
export interface ManualClockOptions {
  /**
   * Gives the event loop a turn between two pieces of timed work (a server passes `setImmediate`), so
   * calls are served while a long move runs. Without it, the pieces follow each other at once.
   */
  yieldTurn?: () => Promise<void>;
}

export class ManualClock implements Clock {
  readonly kind = 'manual';
  private current: number;
  readonly scheduler = new Scheduler();
  private readonly yieldTurn: (() => Promise<void>) | undefined;
  /** The move under way: another waits for it, so two moves never take work from one heap together. */
  private moving: Promise<unknown> = Promise.resolve();

  constructor(startMs = 0, options: ManualClockOptions = {}) {
    if (!Number.isFinite(startMs)) throw new ClockError('the clock must start at a finite time');
    this.current = startMs;
    this.yieldTurn = options.yieldTurn;
  }

  now(): number {
    return this.current;
  }

  /** Schedules work at an instant (work already due runs at the next advance). */
  at(time: number, run: (at: number) => void | Promise<void>): void {
    this.scheduler.schedule(time, run);
  }

  /** Moves the clock on by `ms` from where it reads when this move's turn comes (after any move under way). */
  async advance(ms: number): Promise<number> {
    if (!Number.isFinite(ms) || ms < 0) throw new ClockError('the clock never moves backwards: advance_ms must be 0 or more');
    return this.inTurn(() => this.move(this.current + ms));
  }

  async advanceTo(target: number): Promise<number> {
    if (!Number.isFinite(target)) throw new ClockError('the clock needs a finite time');
    return this.inTurn(() => this.move(target));
  }

  private inTurn(work: () => Promise<number>): Promise<number> {
    const run = this.moving.then(work, work);
    this.moving = run.catch(() => undefined);
    return run;
  }

  /**
   * Runs what falls due up to `target` one piece at a time, with a turn of the event loop after each (with
   * `yieldTurn`), so what one piece of work holds the loop for is bounded by that piece, however far the
   * clock moves. Work that answers a promise is waited for; work that answers at once is followed at once,
   * without a promise and a microtask of its own (most of a simulation's calls wait on nothing).
   */
  private async move(target: number): Promise<number> {
    if (target < this.current) throw new ClockError(`the clock never moves backwards: it reads ${this.current}, asked for ${target}`);
    for (let due = this.scheduler.takeDue(target); due; due = this.scheduler.takeDue(target)) {
      this.current = Math.max(this.current, due.at);
      const ran = due.run(this.current);
      if (ran !== undefined) await ran;
      if (this.yieldTurn) await this.yieldTurn();
    }
    this.current = target;
    return this.current;
  }
}
