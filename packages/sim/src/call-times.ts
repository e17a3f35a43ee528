import type { ManualClock } from '@sdp/clock';
import type { Schedule } from './scenario.ts';

const HOUR = 3_600_000;

/**
 * The instants (Unix ms, whole) at which a schedule calls, from `from` up to but not including `to`, in
 * order. Lazy, so a month of calls never sits in memory.
 */
export function* callTimes(schedule: Schedule, from: number, to: number): Generator<number> {
  switch (schedule.type) {
    case 'steady':
      for (let k = 0; ; k++) {
        const t = from + Math.floor(k * schedule.interval);
        if (t >= to) return;
        yield t;
      }
    case 'burst':
      for (let p = 0; ; p++) {
        const base = from + p * schedule.every;
        if (base >= to) return;
        for (let j = 0; j < schedule.size; j++) {
          const t = base + j * schedule.spacing;
          if (t >= to) return;
          yield t;
        }
      }
    case 'daily': {
      // Calls spread evenly over each clock hour; fractional figures carry over so 0.5 an hour is one every two hours.
      let carry = 0;
      for (let hourStart = Math.floor(from / HOUR) * HOUR; hourStart < to; hourStart += HOUR) {
        const hourOfDay = (((Math.floor(hourStart / HOUR) + schedule.utcOffsetHours) % 24) + 24) % 24;
        const wanted = schedule.hourly[hourOfDay]! + carry;
        const n = Math.floor(wanted + 1e-9);
        carry = wanted - n;
        for (let i = 0; i < n; i++) {
          const t = hourStart + Math.floor((i * HOUR) / n);
          if (t >= to) return;
          if (t >= from) yield t;
        }
      }
      return;
    }
    case 'once':
      for (const at of schedule.at) {
        const t = from + at;
        if (t >= to) return;
        yield t;
      }
  }
}

/**
 * Runs `act` at each instant of the schedule on the manual clock. Each item schedules the next before it
 * acts, so only one item per actor waits on the clock at a time, however long the run. What `act`
 * answers goes to the clock as it is: an act done at once is not made a promise.
 */
export function onSchedule(clock: ManualClock, schedule: Schedule, from: number, to: number, act: (at: number) => void | Promise<void>): void {
  const times = callTimes(schedule, from, to);
  const next = (): void => {
    const t = times.next();
    if (t.done) return;
    clock.at(t.value, due);
  };
  // One function for every item (the clock hands it the item's time): not a closure made per call.
  const due = (at: number): void | Promise<void> => {
    next();
    return act(at);
  };
  next();
}
