import { BadRequest } from '../calls/errors.ts';
import type { CallContext, HandlerTable } from '../handling/handler.ts';
import { compileFilter, type CompiledFilter } from './compiled-filter.ts';
import { dpuText } from './cost.ts';
import { compileAndRegister } from './filter-store.ts';
import { foreignToInsight } from './targets.ts';

/** `/compile` and `/validate` write `created_at` as "YYYY-MM-DD HH:MM:SS" in UTC (wire-facts §1.9). */
function coreTime(ms: number): string {
  const second = Math.floor(ms / 1000);
  // Busy clients validate many times a second; the text changes once a second.
  if (second !== lastSecond) {
    lastSecond = second;
    lastText = new Date(second * 1000).toISOString().slice(0, 19).replace('T', ' ');
  }
  return lastText;
}
let lastSecond = NaN;
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
