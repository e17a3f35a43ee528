import type { Decider, DomainEvent } from '../engine/decider.ts';
import { evolveWith } from '../engine/decider.ts';
import { RateLimited } from '../engine/errors.ts';

export const MINUTE_MS = 60_000;
export const HOUR_MS = 60 * MINUTE_MS;

/**
 * One hourly allowance window (seed §8.1, decisions §2): opened by the first call when none is open,
 * starting at that call's minute mark, resetting exactly 60 minutes later.
 */
export interface CreditWindow {
  start: number;
  reset: number;
  used: number;
}

/** One allowance a call draws from: `general`, `analyze`, or an identity's narrower allowance. */
export interface AllowanceLine {
  key: string;
  limit: number;
  cost: number;
}

/** The five figures every response reports (X-RateLimit-*). */
export interface RateFigures {
  limit: number;
  remaining: number;
  cost: number;
  /** Unix seconds of the next reset. */
  reset: number;
  /** Whole seconds until it. */
  resetTtl: number;
}

export interface Credits {
  windows: Record<string, CreditWindow>;
}

export type CreditsEvent = DomainEvent<
  'CreditsCharged',
  { at: number; endpoint: string; lines: { key: string; cost: number; start: number }[] }
>;

export interface ChargeCredits {
  type: 'ChargeCredits';
  at: number;
  endpoint: string;
  lines: AllowanceLine[];
}

export const creditsStream = (username: string): string => `credits:${username}`;

export const minuteMark = (ms: number): number => Math.floor(ms / MINUTE_MS) * MINUTE_MS;

/** The window in force at `at`: the open one, or the one a call at `at` would open. */
export function windowAt(credits: Credits, key: string, at: number): CreditWindow {
  const w = credits.windows[key];
  if (w && at < w.reset) return w;
  const start = minuteMark(at);
  return { start, reset: start + HOUR_MS, used: 0 };
}

export function figuresOf(window: CreditWindow, limit: number, cost: number, at: number): RateFigures {
  return {
    limit,
    remaining: Math.max(0, limit - window.used),
    cost,
    reset: Math.floor(window.reset / 1000),
    resetTtl: Math.max(0, Math.ceil((window.reset - at) / 1000)),
  };
}

/** A refused charge: carries the figures so the answer can say when to come back. */
export class CreditsExhausted extends RateLimited {
  readonly figures: RateFigures;
  constructor(figures: RateFigures) {
    super(`rate limit exceeded: this call costs ${figures.cost} credits and ${figures.remaining} remain until ${new Date(figures.reset * 1000).toISOString()}`);
    this.figures = figures;
  }
}

export const creditsDecider: Decider<Credits, ChargeCredits, CreditsEvent> = {
  name: 'credits.v1',
  initialState: () => ({ windows: {} }),
  decide(command, state) {
    const charged: { key: string; cost: number; start: number }[] = [];
    let opens = false;
    for (const line of command.lines) {
      const w = windowAt(state, line.key, command.at);
      if (line.limit - w.used < line.cost) throw new CreditsExhausted(figuresOf(w, line.limit, line.cost, command.at));
      charged.push({ key: line.key, cost: line.cost, start: w.start });
      if (state.windows[line.key]?.start !== w.start) opens = true;
    }
    // A free call (pull) still opens the window when none is open (decisions §2: "the first call");
    // inside an open window it leaves no trace, so polling does not grow the log.
    if (!opens && charged.every((c) => c.cost === 0)) return [];
    return [{ type: 'CreditsCharged', data: { at: command.at, endpoint: command.endpoint, lines: charged } }];
  },
  evolve: evolveWith<Credits, CreditsEvent>({
    CreditsCharged(s, d) {
      for (const { key, cost, start } of d.lines) {
        const w = s.windows[key];
        if (w && w.start === start) w.used += cost;
        else s.windows[key] = { start, reset: start + HOUR_MS, used: cost };
      }
    },
  }),
};
