import { limitingDayOf } from '../days/limiting-day.ts';
import { BadRequest } from '../calls/errors.ts';
import type { CallContext, HandlerAnswer, HandlerTable } from '../handling/handler.ts';
import { compileFilter, type CompiledFilter } from './compiled-filter.ts';
import { dpuText } from './cost.ts';
import { compileAndRegister, standaloneFilter } from './filter-store.ts';
import { foreignToInsight } from './targets.ts';

/** `/compile` and `/validate` write `created_at` as "YYYY-MM-DD HH:MM:SS" in UTC (docs/clients.md#times-and-numbers-in-bodies). */
export function coreTime(ms: number): string {
  const second = Math.floor(ms / 1000);
  // Busy clients validate many times a second; the text changes once a second. A simulation moves its
  // clock between calls, so the date is kept per day and the time of day spelled from a table.
  if (second !== lastSecond) {
    lastSecond = second;
    const day = Math.floor(second / 86_400);
    if (day !== lastDay) {
      lastDay = day;
      const iso = new Date(day * 86_400_000).toISOString();
      // Years past 9999 (or before 0) are spelled with a sign: those take the slow way every time.
      lastDate = iso.length === 24 ? `${iso.slice(0, 10)} ` : undefined;
    }
    const s = second - day * 86_400;
    lastText =
      lastDate === undefined
        ? new Date(second * 1000).toISOString().slice(0, 19).replace('T', ' ')
        : lastDate + TWO_DIGITS[Math.floor(s / 3600)]! + ':' + TWO_DIGITS[Math.floor(s / 60) % 60]! + ':' + TWO_DIGITS[s % 60]!;
  }
  return lastText;
}
const TWO_DIGITS = Array.from({ length: 60 }, (_, n) => String(n).padStart(2, '0'));
let lastSecond = NaN;
let lastDay = NaN;
let lastDate: string | undefined;
let lastText = '';

/** The insight product writes it as epoch seconds in a string. */
function insightTime(ms: number): string {
  return String(Math.floor(ms / 1000));
}

/** The definition a call sends: a value when it names no other definition and is not recorded, else a promise. */
function definition(ctx: CallContext, register: boolean, product: 'core' | 'insight' = 'core'): CompiledFilter | Promise<CompiledFilter> {
  const text = ctx.params.requireString('csdl');
  if (product === 'insight') {
    // Judged before anything is recorded, so a refused definition leaves no trace.
    const foreign = foreignToInsight(compileFilter(text).definition);
    if (foreign) throw new BadRequest(`The target ${foreign} does not exist`);
  }
  // Validation of a definition that names no other reads nothing: answered with no turn of the loop.
  if (!register) {
    const alone = standaloneFilter(text);
    if (alone) return alone;
  }
  if (!register) return compileAndRegister(ctx.uow, text, { register });
  const budget = { username: ctx.account.username, dayKey: limitingDayOf(ctx.now, ctx.settings.limitingDay).key, limit: ctx.account.package.filter_chars_per_day };
  return compileAndRegister(ctx.uow, text, { register, budget });
}

/** `answer(ctx, f)` now when the definition is at hand, else once it is. */
function answerWith(ctx: CallContext, f: CompiledFilter | Promise<CompiledFilter>, answer: (ctx: CallContext, f: CompiledFilter) => HandlerAnswer): HandlerAnswer | Promise<HandlerAnswer> {
  return f instanceof Promise ? f.then((compiled) => answer(ctx, compiled)) : answer(ctx, f);
}

const validated = (ctx: CallContext, f: CompiledFilter): HandlerAnswer => ({ body: { created_at: coreTime(ctx.now), dpu: dpuText(f.cost().dpu) } });
const compiled = (ctx: CallContext, f: CompiledFilter): HandlerAnswer => ({ body: { hash: f.hash, created_at: coreTime(ctx.now), dpu: dpuText(f.cost().dpu) } });
const insightValidated = (ctx: CallContext, f: CompiledFilter): HandlerAnswer => ({ body: { created_at: insightTime(ctx.now), dpu: dpuText(f.cost().dpu) } });
const insightCompiled = (ctx: CallContext, f: CompiledFilter): HandlerAnswer => ({ body: { hash: f.hash, created_at: insightTime(ctx.now), dpu: dpuText(f.cost().dpu) } });

export const filterHandlers: HandlerTable = {
  'core.validate': (ctx) => answerWith(ctx, definition(ctx, false), validated),
  'core.compile': (ctx) => answerWith(ctx, definition(ctx, true), compiled),
  'insight.validate': (ctx) => answerWith(ctx, definition(ctx, false, 'insight'), insightValidated),
  'insight.compile': (ctx) => answerWith(ctx, definition(ctx, true, 'insight'), insightCompiled),
};

/**
 * The analysis `filter` parameter: a query filter, judged by the query limits (30 logical operators,
 * 100 arguments per condition). Exported for embedders who check a query filter before they send it;
 * the analysis handlers compile theirs with `compileFilter(text, { kind: 'query' })` directly.
 */
export function compileQueryFilter(text: string): CompiledFilter {
  return compileFilter(text, { kind: 'query' });
}
