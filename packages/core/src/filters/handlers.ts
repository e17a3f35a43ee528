import { BadRequest } from '../calls/errors.ts';
import type { CallContext, HandlerTable } from '../handling/handler.ts';
import { compileFilter, type CompiledFilter } from './compiled-filter.ts';
import { dpuText } from './cost.ts';
import { compileAndRegister } from './filter-store.ts';
import { foreignToInsight } from './targets.ts';

/** `/compile` and `/validate` write `created_at` as "YYYY-MM-DD HH:MM:SS" in UTC (wire-facts §1.9). */
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

async function definition(ctx: CallContext, register: boolean, product: 'core' | 'insight' = 'core'): Promise<CompiledFilter> {
  const text = ctx.params.requireString('csdl');
  if (product === 'insight') {
    // Judged before anything is recorded, so a refused definition leaves no trace.
    const foreign = foreignToInsight(compileFilter(text).definition);
    if (foreign) throw new BadRequest(`The target ${foreign} does not exist`);
  }
  return compileAndRegister(ctx.uow, text, { register });
}

export const filterHandlers: HandlerTable = {
  'core.validate': async (ctx) => {
    const f = await definition(ctx, false);
    return { body: { created_at: coreTime(ctx.now), dpu: dpuText(f.cost().dpu) } };
  },
  'core.compile': async (ctx) => {
    const f = await definition(ctx, true);
    return { body: { hash: f.hash, created_at: coreTime(ctx.now), dpu: dpuText(f.cost().dpu) } };
  },
  'insight.validate': async (ctx) => {
    const f = await definition(ctx, false, 'insight');
    return { body: { created_at: insightTime(ctx.now), dpu: dpuText(f.cost().dpu) } };
  },
  'insight.compile': async (ctx) => {
    const f = await definition(ctx, true, 'insight');
    return { body: { hash: f.hash, created_at: insightTime(ctx.now), dpu: dpuText(f.cost().dpu) } };
  },

};

/**
 * The analysis `filter` parameter: a query filter, judged by the query limits (30 logical operators,
 * 100 arguments per condition). Analysis, sample and previews call this.
 */
export function compileQueryFilter(text: string): CompiledFilter {
  return compileFilter(text, { kind: 'query' });
}
