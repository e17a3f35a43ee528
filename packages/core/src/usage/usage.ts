import { paramsOf } from '../handling/params-of.ts';
import { STATUS_WORDS } from '../contract/params.ts';
import { atLeast } from '../catalogue/versions.ts';
import { creditsDecider, creditsStream, minuteMark, windowAt } from '../accounting/credit-window.ts';
import { limitingDayOf } from '../days/limiting-day.ts';
import { BadRequest, oneOf } from '../calls/errors.ts';
import type { CallContext, HandlerTable } from '../handling/handler.ts';
import { recordingIndexOf } from '../recording-index/recording-index.ts';
import { recordingsDecider, recordingsStream, type Recording } from '../recordings/recording.ts';
import { analysisQueriesOf } from './analysis-queries.ts';
import { streamConnectionsDecider, streamConnectionsStream, streamUsage } from '../streams/stream-connections.ts';

/**
 * Usage and balance as projections over the event log: interactions kept come from the recording index
 * (built from `InteractionsRecorded`, counted by hour), running time from the recordings' start and stop
 * events, analysis queries from the credit charges (`AnalysisQueries`, by hour), and the balance from the
 * account's package. A call's work follows the hours of its span and the account's recordings, not how
 * many interactions or charges there ever were.
 */
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** `Tue, 16 Jan 2018 20:45:00 +0000` (docs/clients.md#times-and-numbers-in-bodies). */
export function usageDate(ms: number): string {
  return new Date(ms).toUTCString().replace('GMT', '+0000');
}

export const CORE_PERIODS = STATUS_WORDS.corePeriod;
export type CorePeriod = (typeof CORE_PERIODS)[number];

/** The window of `/usage`: the last hour or day up to the current minute mark, or the limiting day so far. */
export function coreUsageWindow(period: CorePeriod, now: number, mode: CallContext['settings']['limitingDay']): { from: number; to: number } {
  const mark = minuteMark(now);
  if (period === 'hour') return { from: mark - HOUR, to: mark };
  if (period === 'day') return { from: mark - DAY, to: mark };
  return { from: limitingDayOf(now, mode).start, to: now };
}

function runningMs(r: Recording, from: number, to: number): number {
  let ms = 0;
  for (const run of r.runs) {
    const a = Math.max(run.start, from);
    const b = Math.min(run.end ?? to, to);
    if (b > a) ms += b - a;
  }
  return ms;
}

async function keptBetween(ctx: CallContext, recordings: Recording[], from: number, to: number): Promise<Map<string, number>> {
  const index = await recordingIndexOf(ctx).caughtUp(ctx.now);
  const out = new Map<string, number>();
  for (const r of recordings) {
    const set = index.recording(r.id);
    out.set(r.id, set ? set.hours.count(from, to) : 0);
  }
  return out;
}

async function coreUsage(ctx: CallContext) {
  const period = paramsOf(ctx, 'core.usage').period ?? 'hour';
  const { from, to } = coreUsageWindow(period, ctx.now, ctx.settings.limitingDay);
  const state = await ctx.uow.load(recordingsDecider, recordingsStream(ctx.account.username));
  const recordings = state.order.map((id) => state.byId[id]!);
  const kept = await keptBetween(ctx, recordings, from, to);
  const streams: Record<string, { licenses: Record<string, number>; seconds: number }> = {};
  for (const r of recordings) {
    const seconds = Math.floor(runningMs(r, from, to) / 1000);
    const n = kept.get(r.id) ?? 0;
    if (seconds === 0 && n === 0) continue;
    const s = (streams[r.hash] ??= { licenses: { interaction: 0 }, seconds: 0 });
    s.licenses.interaction! += n;
    s.licenses[r.service] = (s.licenses[r.service] ?? 0) + n;
    s.seconds += seconds;
  }
  // The stream product's subscriptions: seconds subscribed, interactions delivered by licence type.
  const live = await ctx.uow.load(streamConnectionsDecider, streamConnectionsStream(ctx.account.username));
  for (const [hash, u] of streamUsage(live, from, to)) {
    const s = (streams[hash] ??= { licenses: { interaction: 0 }, seconds: 0 });
    for (const [type, n] of Object.entries(u.licenses)) s.licenses[type] = (s.licenses[type] ?? 0) + n;
    s.seconds += u.seconds;
  }
  if (Object.keys(streams).length === 0) return { body: atLeast(ctx.version, '1.1') ? {} : [] };
  return { body: { start: usageDate(from), end: usageDate(to), streams } };
}

export const ACCOUNT_PERIODS = STATUS_WORDS.accountPeriod;
export type AccountPeriod = (typeof ACCOUNT_PERIODS)[number];

/** The start of the bucket holding `ms`: UTC hours, limiting days, UTC calendar months. */
export function usageBucket(period: AccountPeriod, ms: number, mode: CallContext['settings']['limitingDay']): number {
  if (period === 'hourly') return Math.floor(ms / HOUR) * HOUR;
  if (period === 'daily') return limitingDayOf(ms, mode).start;
  const d = new Date(ms);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
}

const DEFAULT_SPAN: Record<AccountPeriod, number> = { hourly: DAY, daily: 30 * DAY, monthly: 365 * DAY };

interface UsageLine {
  quantity: number;
  cost: number;
  category: string;
  unit: string;
  source: string;
  timestamp: number;
}

async function accountUsage(ctx: CallContext) {
  const p = paramsOf(ctx, 'account.usage');
  const period = p.period ?? 'daily';
  const to = p.end !== undefined ? p.end * 1000 : ctx.now + 1;
  const from = p.start !== undefined ? p.start * 1000 : to - DEFAULT_SPAN[period];
  if (from > to) throw new BadRequest('Start cannot be after end');
  const mode = ctx.settings.limitingDay;
  const lines = new Map<string, UsageLine>();
  const add = (category: string, unit: string, source: string, at: number, quantity: number) => {
    const timestamp = Math.floor(usageBucket(period, at, mode) / 1000);
    const key = `${category}|${source}|${timestamp}`;
    const line = lines.get(key);
    if (line) line.quantity += quantity;
    else lines.set(key, { quantity, cost: 0, category, unit, source, timestamp });
  };
  const state = await ctx.uow.load(recordingsDecider, recordingsStream(ctx.account.username));
  const index = await recordingIndexOf(ctx).caughtUp(ctx.now);
  // Every bucket is a union of whole UTC hours (limiting days start on the hour), so an hour's count
  // lands in the bucket of its start.
  for (const id of state.order) {
    const r = state.byId[id]!;
    index.recording(id)?.hours.eachHour(from, to, (hour, n) => add('realtime', 'interaction', r.service, hour, n));
  }
  (await analysisQueriesOf(ctx).of(ctx.account.username))?.eachHour(from, to, (hour, n) => add('analysis', 'query', '', hour, n));
  const usage = [...lines.values()].sort((a, b) => a.timestamp - b.timestamp || (a.category < b.category ? -1 : a.category > b.category ? 1 : 0) || (a.source < b.source ? -1 : 1));
  return { body: usage.length === 0 ? [] : { usage } };
}

/** `/balance`: the package's allowances with what is used of them now (docs/clients.md#balance, allowances form). */
async function balance(ctx: CallContext) {
  const pkg = ctx.account.package;
  const d = new Date(ctx.now);
  const monthStart = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
  const state = await ctx.uow.load(recordingsDecider, recordingsStream(ctx.account.username));
  const index = await recordingIndexOf(ctx).caughtUp(ctx.now);
  let recorded = 0;
  for (const id of state.order) recorded += index.recording(id)?.hours.count(monthStart, ctx.now + 1) ?? 0;
  const credits = await ctx.uow.load(creditsDecider, creditsStream(ctx.account.username));
  const used = (key: string) => windowAt(credits, key, ctx.now).used;
  const line = (name: string, categories: string[], allowance: number, usage: number) => ({
    name,
    categories,
    cost: 0,
    allowance,
    remaining: Math.max(0, allowance - usage),
    usage,
  });
  return {
    body: {
      balance: {
        plan: 'subscription',
        threshold: pkg.index_capacity_per_month,
        allowances: [
          line('Index capacity this month', ['realtime'], pkg.index_capacity_per_month, recorded),
          line('API credits this hour', ['api'], pkg.credits_per_hour, used('general')),
          line('Analysis credits this hour', ['analysis'], pkg.analyze_credits_per_hour, used('analyze')),
        ],
      },
    },
  };
}

export const usageHandlers: HandlerTable = {
  'core.usage': coreUsage,
  'account.usage': accountUsage,
  'core.balance': balance,
};
