// The public face of @sdp/clock; what is not listed is internal (packaging/api/clock.api.md shows every change).
export { ClockError, ManualClock, type ManualClockOptions } from './manual-clock.ts';
export { randomIds } from './random-ids.ts';
export { Scheduler, type Due } from './scheduler.ts';
export { SystemClock } from './system-clock.ts';
