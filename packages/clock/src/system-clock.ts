import type { Clock } from '@sdp/core/kernel';

/** The machine's clock. */
export class SystemClock implements Clock {
  readonly kind = 'system';
  now(): number {
    return Date.now();
  }
}
