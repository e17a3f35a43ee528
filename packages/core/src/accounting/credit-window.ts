import { streamNamer } from '../kernel/stream-names.ts';
import type { Decider, DomainEvent } from '../kernel/decider.ts';
import { RateLimited } from '../calls/errors.ts';

export const MINUTE_MS = 60_000;
export const HOUR_MS = 60 * MINUTE_MS;

/**
 * One hourly allowance window (docs/contract.md#hourly-allowances): opened by the first call when none is open,
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

/**
 * Each allowance's open window as two numbers in one flat record: `start:{key}` (its reset is an hour
 * later) and `used:{key}`. One level, so a charge copies one small object instead of three nested ones
 * (a charge runs on every call). Read it through `openWindow` / `windowAt`.
 */
export type Credits = Readonly<Record<string, number>>;

export type CreditsEvent = DomainEvent<
  'CreditsCharged',
  { at: number; endpoint: string; lines: { key: string; cost: number; start: number }[] }
>;

export interface ChargeCredits {
  type: 'ChargeCredits';
  at: number;
  endpoint: string;
  lines: readonly AllowanceLine[];
}

/** The account's credit stream; the same string for the same username (see `streamNamer`). */
export const creditsStream: (username: string) => string = streamNamer('credits:');

export const minuteMark = (ms: number): number => Math.floor(ms / MINUTE_MS) * MINUTE_MS;

/**
 * The two field names of each allowance key, built once: a charge reads and writes them on every call,
 * and a fresh concatenation each time costs an allocation and a hash per lookup. Keys are few (two per
 * account, one per identity allowance); past the bound the names are simply built again.
 */
const fieldNames = new Map<string, { start: string; used: string }>();
function fieldsOf(key: string): { start: string; used: string } {
  let names = fieldNames.get(key);
  if (names === undefined) {
    names = { start: `start:${key}`, used: `used:${key}` };
    if (fieldNames.size < 10_000) fieldNames.set(key, names);
  }
  return names;
}

/** The last window opened for `key` (in force or not), if any. */
export function openWindow(credits: Credits, key: string): CreditWindow | undefined {
  const f = fieldsOf(key);
  const start = credits[f.start];
  return start === undefined ? undefined : { start, reset: start + HOUR_MS, used: credits[f.used] ?? 0 };
}

/** The window in force at `at`: the open one, or the one a call at `at` would open. */
export function windowAt(credits: Credits, key: string, at: number): CreditWindow {
  const f = fieldsOf(key);
  const start = credits[f.start];
  if (start !== undefined && at < start + HOUR_MS) return { start, reset: start + HOUR_MS, used: credits[f.used] ?? 0 };
  const fresh = minuteMark(at);
  return { start: fresh, reset: fresh + HOUR_MS, used: 0 };
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
  // v2: the flat state (v1 snapshots held `{windows: {key: CreditWindow}}` and are ignored; the events are the same).
  name: 'credits.v2',
  initialState: () => ({}),
  decide(command, state) {
    const lines = command.lines;
    // Sized up front: an empty array's first push allocates room for sixteen, and a charge runs on every call.
    const charged: { key: string; cost: number; start: number }[] = new Array(lines.length);
    let opens = false;
    let free = true;
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i]!;
      const w = windowAt(state, line.key, command.at);
      if (line.limit - w.used < line.cost) throw new CreditsExhausted(figuresOf(w, line.limit, line.cost, command.at));
      charged[i] = { key: line.key, cost: line.cost, start: w.start };
      if (state[fieldsOf(line.key).start] !== w.start) opens = true;
      if (line.cost !== 0) free = false;
    }
    // A free call (pull) still opens the window when none is open (docs/contract.md#hourly-allowances: "the first call");
    // inside an open window it leaves no trace, so polling does not grow the log.
    if (!opens && free) return [];
    return [{ type: 'CreditsCharged', data: { at: command.at, endpoint: command.endpoint, lines: charged } }];
  },
  // A charge runs on every call, so this one evolve copies its flat record by hand rather than through an
  // immer draft (a third of a charge's cost); the copy is frozen as immer would, since cached states are
  // shared between calls.
  evolve(state, event) {
    if (event.type !== 'CreditsCharged') return state;
    const s: Record<string, number> = { ...state };
    for (const { key, cost, start } of event.data.lines) {
      const f = fieldsOf(key);
      if (s[f.start] === start) s[f.used] = (s[f.used] ?? 0) + cost;
      else {
        s[f.start] = start;
        s[f.used] = cost;
      }
    }
    return Object.freeze(s);
  },
};

/**
 * The credit charges a `memory:` store may forget once a snapshot covers them (`MemoryStoreOptions`):
 * every call adds one, and only the folded window is read again, except analysis queries, which
 * `/account/usage` lists from the stream's history.
 */
export function forgettableCharge(event: { stream: string; type: string; data: unknown }): boolean {
  return event.stream.startsWith('credits:') && !(event.type === 'CreditsCharged' && (event.data as { endpoint?: string }).endpoint === 'insight.analyze');
}
