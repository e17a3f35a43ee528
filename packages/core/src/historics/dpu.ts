import { paramsOf } from '../handling/params-of.ts';
import { BadRequest, NotFound } from '../calls/errors.ts';
import { loadFilter } from '../filters/filter-store.ts';
import { HASH } from '../filters/filter-registry.ts';
import type { HandlerTable } from '../handling/handler.ts';
import { notFoundMessage } from './historics-query.ts';
import { historicsQuery } from './queries.ts';

/**
 * `/dpu`: the cost of a compiled filter (`hash`) or of a prepared historics query (`historics_id`). It
 * lives with historics because it reads both; filters sit on the floor below and know nothing of queries.
 */
export const dpuHandlers: HandlerTable = {
  'core.dpu': async (ctx) => {
    const p = paramsOf(ctx, 'core.dpu');
    const hash = p.hash;
    if (hash !== undefined) {
      if (!HASH.test(hash.toLowerCase())) throw new BadRequest('Unable to get DPU [400]', { original_error: 'hash must be a valid hash' });
      const f = await loadFilter(ctx.uow, hash);
      if (!f) throw new NotFound(`No compiled filter with the hash ${hash}`);
      return { body: f.cost() };
    }
    const historicsId = p.historics_id;
    if (historicsId !== undefined) {
      // The query's cost was fixed when it was prepared; answered as a number (a null dpu breaks clients).
      const q = await historicsQuery(ctx.uow, ctx.account.username, historicsId);
      if (!q) throw new BadRequest('Unable to get DPU [400]', { original_error: notFoundMessage(historicsId) });
      return { body: { dpu: q.dpu, detail: {} } };
    }
    throw new BadRequest("Missing param 'hash'");
  },
};
