import { accountOfStream, asPlatformEvent, endpointById, type CallAnswer, type PlatformStoredEvent, type RateFigures } from '@sdp/core';
import { type StoredEvent } from '@sdp/core/kernel';

const HOUR = 3_600_000;
const MINUTE = 60_000;
/** Stream names whose account the ledger keeps at once (a run writes to a few per account and day). */
const STREAMS_REMEMBERED = 4_096;

/** What one account did in one hour of the scenario. */
export interface HourRow {
  hour: number;
  /** ISO instant the hour starts. */
  start: string;
  account: string;
  calls: number;
  /** Calls past the allowance check (charged, or served free). */
  admitted: number;
  /** Refused because the allowance had less than the cost left (403 before 1.2, 429 from 1.2). */
  refusedRate: number;
  /** Task creations refused because the slot's queue was full. */
  refusedQueue: number;
  /** Stream subscriptions refused for the allowance (each charged 5 when admitted). */
  refusedStream: number;
  /** Stream connections refused because the package's `stream_connections` were all open. */
  refusedConnections: number;
  retries: number;
  /** Calls a client stopped retrying. */
  gaveUp: number;
  statuses: Record<string, number>;
  /** General-allowance credits charged, by endpoint group (`stream` for the stream product). */
  credits: Record<string, number>;
  analyzeCredits: number;
  /** Seconds from a refusal to the reset it announced, general allowance. */
  rateLimitedSeconds: number;
  analyzeLimitedSeconds: number;
  /** Allowance windows that reset in this hour. */
  resets: number;
  /** General credits remaining at the end of the hour, as the engine reports them. */
  remainingEnd: number;
  remainingMin: number;
  /** Largest `X-Analysis-Tasks-Queued` seen. */
  tasksQueuedMax: number;
  /** Analysis tasks queued this hour, and the seconds from queueing to result (from `TaskQueued` events). */
  tasksCreated: number;
  taskWaitMeanSeconds: number;
  taskWaitMaxSeconds: number;
}

export interface AccountTotals {
  account: string;
  packageName: string;
  creditsPerHour: number;
  calls: number;
  admitted: number;
  refusedRate: number;
  refusedQueue: number;
  refusedStream: number;
  /** Stream connections refused because the package's `stream_connections` were all open. */
  refusedConnections: number;
  /** Stream subscriptions attempted (admitted or refused). */
  streamCharges: number;
  retries: number;
  gaveUp: number;
  notImplemented: Record<string, number>;
  statuses: Record<string, number>;
  credits: Record<string, number>;
  analyzeCredits: number;
  rateLimitedSeconds: number;
  resets: number;
  /** Instants (Unix ms) the general window reset. */
  resetTimes: number[];
  tasksQueuedMax: number;
  /** `X-Analysis-Tasks-Queue-Limit` as answered, once seen. */
  queueLimit: number | null;
  tasksCreated: number;
  taskWaitMaxSeconds: number;
}

/** Recording capacity of one account on one limiting day, from the capacity aggregate's events. */
export interface CapacityDay {
  account: string;
  /** The limiting day's date in its zone. */
  day: string;
  used: number;
  refused: number;
}

interface AccountTrack {
  rows: HourRow[];
  totals: AccountTotals;
  limitedUntil: Record<string, number>;
  lastReset: Record<string, number>;
  /** Minute series of general credits remaining (NaN where not yet filled), for charts. */
  remaining: Float64Array;
  filledTo: number;
  lastRemaining: number;
  queued: Float64Array;
  capacity: Map<string, CapacityDay>;
  resetsSeen: Set<number>;
}

/**
 * Turns the engine's answers and events into hourly figures. It never judges a call itself: admitted,
 * refused, remaining and resets are read from the answer's status and rate figures, charged credits from
 * the `CreditsCharged` events the engine wrote.
 */
export class UsageLedger {
  readonly hours: number;
  readonly minutes: number;
  private accounts = new Map<string, AccountTrack>();
  private readonly streamAccounts = new Map<string, string | undefined>();

  constructor(
    readonly start: number,
    readonly duration: number,
  ) {
    this.hours = Math.max(1, Math.ceil(duration / HOUR));
    this.minutes = Math.max(1, Math.ceil(duration / MINUTE));
  }

  addAccount(account: string, packageName: string, creditsPerHour: number): void {
    const rows: HourRow[] = [];
    for (let h = 0; h < this.hours; h++) {
      rows.push({
        hour: h,
        start: new Date(this.start + h * HOUR).toISOString(),
        account,
        calls: 0,
        admitted: 0,
        refusedRate: 0,
        refusedQueue: 0,
        refusedStream: 0,
        refusedConnections: 0,
        retries: 0,
        gaveUp: 0,
        statuses: {},
        credits: {},
        analyzeCredits: 0,
        rateLimitedSeconds: 0,
        analyzeLimitedSeconds: 0,
        resets: 0,
        remainingEnd: creditsPerHour,
        remainingMin: creditsPerHour,
        tasksQueuedMax: 0,
        tasksCreated: 0,
        taskWaitMeanSeconds: 0,
        taskWaitMaxSeconds: 0,
      });
    }
    this.accounts.set(account, {
      rows,
      totals: {
        account,
        packageName,
        creditsPerHour,
        calls: 0,
        admitted: 0,
        refusedRate: 0,
        refusedQueue: 0,
        refusedStream: 0,
        refusedConnections: 0,
        streamCharges: 0,
        retries: 0,
        gaveUp: 0,
        notImplemented: {},
        statuses: {},
        credits: {},
        analyzeCredits: 0,
        rateLimitedSeconds: 0,
        resets: 0,
        resetTimes: [],
        tasksQueuedMax: 0,
        queueLimit: null,
        tasksCreated: 0,
        taskWaitMaxSeconds: 0,
      },
      limitedUntil: {},
      lastReset: {},
      remaining: new Float64Array(this.minutes).fill(Number.NaN),
      filledTo: -1,
      lastRemaining: creditsPerHour,
      queued: new Float64Array(this.minutes).fill(Number.NaN),
      capacity: new Map(),
      resetsSeen: new Set(),
    });
  }

  private hourOf(at: number): number {
    return Math.min(this.hours - 1, Math.max(0, Math.floor((at - this.start) / HOUR)));
  }

  /** One answer to a scheduled call (or a retry of one). Returns what kind of refusal it was, if any. */
  recordCall(account: string, endpointId: string, at: number, answer: CallAnswer, retry: boolean): 'rate' | 'queue' | null {
    const a = this.accounts.get(account)!;
    const row = a.rows[this.hourOf(at)]!;
    const status = answer.status;
    const key = String(status);
    row.calls++;
    a.totals.calls++;
    if (retry) {
      row.retries++;
      a.totals.retries++;
    }
    row.statuses[key] = (row.statuses[key] ?? 0) + 1;
    a.totals.statuses[key] = (a.totals.statuses[key] ?? 0) + 1;
    if (status === 501) a.totals.notImplemented[endpointId] = (a.totals.notImplemented[endpointId] ?? 0) + 1;
    const endpoint = endpointById(endpointId);
    const allowanceKey = endpoint.allowance === 'analyze' ? 'analyze' : 'general';
    let refusal: 'rate' | 'queue' | null = null;
    const rate = answer.rate;
    if ((status === 403 || status === 429) && rate) {
      // Clients tell rate limiting by the figures: a refusal whose cost is more than what remains (docs/contract.md#judgement-order).
      if (rate.cost > rate.remaining && endpoint.allowance !== 'task-slots') refusal = 'rate';
      else if (endpoint.allowance === 'task-slots') refusal = 'queue';
    }
    if (refusal === 'rate') {
      row.refusedRate++;
      a.totals.refusedRate++;
      this.limited(a, allowanceKey, at, rate!.reset * 1000);
    } else if (refusal === 'queue') {
      row.refusedQueue++;
      a.totals.refusedQueue++;
    } else if (status !== 401 && status !== 403 && status < 500) {
      row.admitted++;
      a.totals.admitted++;
    }
    if (rate && endpoint.allowance !== 'none') this.observe(a, allowanceKey, at, rate);
    const queued = answer.headers?.['X-Analysis-Tasks-Queued'];
    if (queued !== undefined) this.queueLength(a, at, Number(queued));
    const queueLimit = answer.headers?.['X-Analysis-Tasks-Queue-Limit'];
    if (queueLimit !== undefined && Number.isFinite(Number(queueLimit))) a.totals.queueLimit = Number(queueLimit);
    return refusal;
  }

  /** One subscription of a stream consumer: admitted (and charged) or refused for the allowance. */
  recordStream(account: string, at: number, figures: RateFigures, refused: boolean): void {
    const a = this.accounts.get(account)!;
    const row = a.rows[this.hourOf(at)]!;
    a.totals.streamCharges++;
    if (refused) {
      row.refusedStream++;
      a.totals.refusedStream++;
      this.limited(a, 'general', at, figures.reset * 1000);
    }
    this.observe(a, 'general', at, figures);
  }

  /** A stream connection refused because the package's `stream_connections` were all open. */
  recordStreamConnectionRefused(account: string, at: number): void {
    const a = this.accounts.get(account)!;
    a.rows[this.hourOf(at)]!.refusedConnections++;
    a.totals.refusedConnections++;
  }

  recordGaveUp(account: string, at: number): void {
    const a = this.accounts.get(account)!;
    a.rows[this.hourOf(at)]!.gaveUp++;
    a.totals.gaveUp++;
  }

  /** A queue length read elsewhere (a task answer's header). */
  queueLength(a: AccountTrack | string, at: number, n: number): void {
    const track = typeof a === 'string' ? this.accounts.get(a)! : a;
    if (!Number.isFinite(n)) return;
    const row = track.rows[this.hourOf(at)]!;
    row.tasksQueuedMax = Math.max(row.tasksQueuedMax, n);
    track.totals.tasksQueuedMax = Math.max(track.totals.tasksQueuedMax, n);
    const m = Math.min(this.minutes - 1, Math.floor((at - this.start) / MINUTE));
    track.queued[m] = Number.isNaN(track.queued[m]!) ? n : Math.max(track.queued[m]!, n);
  }

  /**
   * Whose stream this is (`accountOfStream`), remembered by name: a run charges the same few streams
   * thousands of times. Forgotten whole past a bound, as a long run names a capacity stream a day.
   */
  private accountOf(stream: string): string | undefined {
    if (this.streamAccounts.has(stream)) return this.streamAccounts.get(stream);
    if (this.streamAccounts.size >= STREAMS_REMEMBERED) this.streamAccounts.clear();
    const account = accountOfStream(stream);
    this.streamAccounts.set(stream, account);
    return account;
  }

  /** Charged credits, from the engine's own `CreditsCharged` events (and capacity and task events). */
  recordEvents(events: StoredEvent[]): void {
    for (const e of events) this.recordEvent(e);
  }

  recordEvent(stored: StoredEvent): void {
    const e = asPlatformEvent(stored);
    if (!e) return;
    switch (e.type) {
      case 'InteractionsRecorded':
        return this.recordCapacity(e);
      case 'TaskQueued':
        return this.recordTask(e);
      case 'CreditsCharged':
        return this.recordCharge(e);
    }
  }

  private recordCharge(e: Extract<PlatformStoredEvent, { type: 'CreditsCharged' }>): void {
    const a = this.accounts.get(this.accountOf(e.stream) ?? '');
    if (!a) return;
    const data = e.data;
    // Charges not made by a call keep their own name: an operator's injected fault, and the operator's
    // stream charge in logs written before it was a call (`stream`; now `stream.charge`, of the stream group).
    const group = data.endpoint === 'stream' || data.endpoint.startsWith('fault.') ? data.endpoint : endpointById(data.endpoint).group;
    const row = a.rows[this.hourOf(e.time)]!;
    for (const line of data.lines) {
      if (line.key === 'general') {
        row.credits[group] = (row.credits[group] ?? 0) + line.cost;
        a.totals.credits[group] = (a.totals.credits[group] ?? 0) + line.cost;
      } else if (line.key === 'analyze') {
        row.analyzeCredits += line.cost;
        a.totals.analyzeCredits += line.cost;
      }
    }
  }

  /** The engine's view at the end of an hour: what remains then, and resets that came with no call. */
  closeHour(account: string, hour: number, at: number, remaining: number): void {
    const a = this.accounts.get(account)!;
    const row = a.rows[hour]!;
    row.remainingEnd = remaining;
    row.remainingMin = Math.min(row.remainingMin, remaining);
    this.fillMinutes(a, Math.min(this.minutes, Math.floor((at - this.start) / MINUTE) + 1), remaining);
  }

  /** Ends the run: windows whose reset fell before the end without a later call still reset. */
  finish(): void {
    const end = this.start + this.duration;
    for (const a of this.accounts.values()) {
      for (const key of Object.keys(a.lastReset)) {
        const r = a.lastReset[key]!;
        if (r <= end) this.countReset(a, key, r);
      }
    }
  }

  /** Kept and refused interactions, per limiting day (the day key is the aggregate's own). */
  private recordCapacity(e: Extract<PlatformStoredEvent, { type: 'InteractionsRecorded' }>): void {
    const data = e.data;
    const username = this.accountOf(e.stream);
    const a = username === undefined ? undefined : this.accounts.get(username);
    if (!a || username === undefined) return;
    let d = a.capacity.get(data.day);
    if (!d) a.capacity.set(data.day, (d = { account: username, day: data.day, used: 0, refused: 0 }));
    for (const n of Object.values(data.kept)) d.used += n;
    for (const n of Object.values(data.refused)) d.refused += n;
  }

  private recordTask(e: Extract<PlatformStoredEvent, { type: 'TaskQueued' }>): void {
    const a = this.accounts.get(this.accountOf(e.stream) ?? '');
    if (!a) return;
    const data = e.data;
    const row = a.rows[this.hourOf(data.at)]!;
    const wait = (data.finishAt - data.at) / 1000;
    row.taskWaitMeanSeconds = (row.taskWaitMeanSeconds * row.tasksCreated + wait) / (row.tasksCreated + 1);
    row.tasksCreated++;
    row.taskWaitMaxSeconds = Math.max(row.taskWaitMaxSeconds, wait);
    a.totals.tasksCreated++;
    a.totals.taskWaitMaxSeconds = Math.max(a.totals.taskWaitMaxSeconds, wait);
  }

  capacityDays(account: string): Map<string, CapacityDay> {
    return this.accounts.get(account)!.capacity;
  }

  rows(): HourRow[] {
    const out: HourRow[] = [];
    for (let h = 0; h < this.hours; h++) for (const a of this.accounts.values()) out.push(a.rows[h]!);
    return out;
  }

  rowsOf(account: string): HourRow[] {
    return this.accounts.get(account)!.rows;
  }

  totals(): AccountTotals[] {
    return [...this.accounts.values()].map((a) => a.totals);
  }

  remainingSeries(account: string): Float64Array {
    return this.accounts.get(account)!.remaining;
  }

  queueSeries(account: string): Float64Array {
    return this.accounts.get(account)!.queued;
  }

  private observe(a: AccountTrack, key: string, at: number, rate: RateFigures): void {
    const reset = rate.reset * 1000;
    const prev = a.lastReset[key];
    if (prev !== undefined && prev !== reset && prev <= at) this.countReset(a, key, prev);
    a.lastReset[key] = reset;
    if (key !== 'general') return;
    const row = a.rows[this.hourOf(at)]!;
    row.remainingMin = Math.min(row.remainingMin, rate.remaining);
    const m = Math.min(this.minutes - 1, Math.floor((at - this.start) / MINUTE));
    this.fillMinutes(a, m, Number.NaN);
    const cur = a.remaining[m]!;
    a.remaining[m] = Number.isNaN(cur) ? rate.remaining : Math.min(cur, rate.remaining);
    a.lastRemaining = rate.remaining;
    if (a.filledTo < m) a.filledTo = m;
  }

  /** Minutes with no answer carry the last figure, or the full allowance once a reset has passed. */
  private fillMinutes(a: AccountTrack, upTo: number, endValue: number): void {
    const reset = a.lastReset.general;
    for (let m = a.filledTo + 1; m < upTo; m++) {
      const t = this.start + m * MINUTE;
      a.remaining[m] = reset !== undefined && t >= reset ? a.totals.creditsPerHour : a.lastRemaining;
    }
    if (!Number.isNaN(endValue) && upTo > 0) {
      a.remaining[upTo - 1] = Number.isNaN(a.remaining[upTo - 1]!) ? endValue : Math.min(a.remaining[upTo - 1]!, endValue);
      a.lastRemaining = endValue;
    }
    if (upTo - 1 > a.filledTo) a.filledTo = upTo - 1;
  }

  private countReset(a: AccountTrack, key: string, at: number): void {
    if (at > this.start + this.duration || at - this.start >= this.hours * HOUR) return;
    if (key === 'general') {
      if (a.resetsSeen.has(at)) return;
      a.resetsSeen.add(at);
      a.totals.resetTimes.push(at);
      a.rows[this.hourOf(at)]!.resets++;
      a.totals.resets++;
    }
    if (a.lastReset[key] === at) delete a.lastReset[key];
  }

  private limited(a: AccountTrack, key: string, at: number, until: number): void {
    const from = Math.max(at, a.limitedUntil[key] ?? at);
    const end = Math.min(until, this.start + this.duration);
    if (end > from) {
      for (let t = from; t < end; ) {
        const h = this.hourOf(t);
        const hourEnd = Math.min(end, this.start + (h + 1) * HOUR);
        const seconds = (hourEnd - t) / 1000;
        if (key === 'general') {
          a.rows[h]!.rateLimitedSeconds += seconds;
          a.totals.rateLimitedSeconds += seconds;
        } else a.rows[h]!.analyzeLimitedSeconds += seconds;
        t = hourEnd;
      }
    }
    a.limitedUntil[key] = Math.max(a.limitedUntil[key] ?? 0, until);
  }
}
