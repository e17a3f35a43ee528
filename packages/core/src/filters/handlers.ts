import { BadRequest, NotFound } from '../calls/errors.ts';
import type { CallContext, HandlerTable } from '../handling/handler.ts';
import { compileFilter, type CompiledFilter } from './compiled-filter.ts';
import { dpuText } from './cost.ts';
import { compileAndRegister, loadFilter } from './filter-store.ts';
import { HASH } from './filter-registry.ts';
import { foreignToInsight } from './targets.ts';
import { historicsDecider, historicsStream, notFoundMessage } from '../historics/historics-query.ts';

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
  'core.dpu': async (ctx) => {
    const hash = ctx.params.string('hash');
    if (hash !== undefined) {
      if (!HASH.test(hash.toLowerCase())) throw new BadRequest('Unable to get DPU [400]', { original_error: 'hash must be a valid hash' });
      const f = await loadFilter(ctx.uow, hash);
      if (!f) throw new NotFound(`No compiled filter with the hash ${hash}`);
      return { body: f.cost() };
    }
    const historicsId = ctx.params.string('historics_id');
    if (historicsId !== undefined) {
      // The query's cost was fixed when it was prepared; answered as a number (a null dpu breaks clients).
      const queries = await ctx.uow.load(historicsDecider, historicsStream(ctx.account.username));
      const q = queries.byId[historicsId];
      if (!q) throw new BadRequest('Unable to get DPU [400]', { original_error: notFoundMessage(historicsId) });
      return { body: { dpu: q.dpu, detail: {} } };
    }
    throw new BadRequest("Missing param 'hash'");
  },
};

/**
 * The analysis `filter` parameter: a query filter, judged by the query limits (30 logical operators,
 * 100 arguments per condition). Analysis, sample and previews call this.
 */
export function compileQueryFilter(text: string): CompiledFilter {
  return compileFilter(text, { kind: 'query' });
}
