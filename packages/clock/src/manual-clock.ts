import type { Clock } from '@sdp/core';
import { Scheduler } from './scheduler.ts';

export class ClockError extends Error {
  readonly status = 400;
}

/**
 * A virtual clock that moves only when told, never backwards. Work scheduled on it runs in time order as
 * it advances, with the clock reading each piece of work's own time while that work runs.
 */
export class ManualClock implements Clock {
  readonly kind = 'manual';
  private current: number;
  readonly scheduler = new Scheduler();

  constructor(startMs = 0) {
    if (!Number.isFinite(startMs)) throw new ClockError('the clock must start at a finite time');
    this.current = startMs;
  }

  now(): number {
    return this.current;
  }

  /** Schedules work at an instant (work already due runs at the next advance). */
  at(time: number, run: (at: number) => void | Promise<void>): void {
    this.scheduler.schedule(time, run);
  }

  async advance(ms: number): Promise<number> {
    if (!Number.isFinite(ms) || ms < 0) throw new ClockError('the clock never moves backwards: advance_ms must be 0 or more');
    return this.advanceTo(this.current + ms);
  }

  async advanceTo(target: number): Promise<number> {
    if (!Number.isFinite(target)) throw new ClockError('the clock needs a finite time');
    if (target < this.current) throw new ClockError(`the clock never moves backwards: it reads ${this.current}, asked for ${target}`);
    for (let due = this.scheduler.takeDue(target); due; due = this.scheduler.takeDue(target)) {
      this.current = Math.max(this.current, due.at);
      await due.run(this.current);
    }
    this.current = target;
    return this.current;
  }
}
