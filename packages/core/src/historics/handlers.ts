import { atLeast } from '../catalogue/versions.ts';
import { BadRequest } from '../calls/errors.ts';
import type { CallContext, HandlerTable } from '../handling/handler.ts';
import { namedFilter } from '../filters/index.ts';
import { pageOf, readPaging, type PagingRule } from '../calls/paging.ts';
import { paramsOf } from '../handling/params-of.ts';
import { historicsSourceNames } from './queries.ts';
import { historicsAvailability, historicsAvailabilityByDay } from './availability.ts';
import {
  HISTORICS_SOURCES,
  checkHistoricsSpan,
  checkHistoricsSources,
  existingHistoricsQuery,
  historicsDecider,
  historicsStream,
  type HistoricsQueries,
  type HistoricsQuery,
} from './historics-query.ts';
import { timelineCompletion, timelineProgress, timelineStatus } from './progress.ts';
import { epochSeconds } from '../calls/epoch.ts';
import { freshId } from '../calls/fresh-id.ts';

/** The list's size parameter is `max`, 20 unless given. */
const HISTORICS_PAGING: PagingRule = { defaultSize: 20 };
const stream = (ctx: CallContext): string => historicsStream(ctx.account.username);

/** DPU of a query: its filter's cost for every hour of data it covers, in the platform's hundredths. */
export function historicsDpu(filterDpu: number, startSec: number, endSec: number): number {
  return Math.round(filterDpu * Math.ceil((endSec - startSec) / 3600) * 100) / 100;
}

export function historicsView(q: HistoricsQuery, now: number, version: CallContext['version']): Record<string, unknown> {
  const status = timelineStatus(q, now);
  const done = timelineCompletion(q);
  return {
    id: q.id,
    definition_id: q.hash,
    name: q.name,
    start: q.start,
    end: q.end,
    created_at: epochSeconds(q.createdAt),
    status,
    progress: timelineProgress(q, now),
    sources: q.sources,
    sample: q.sample,
    estimated_completion: done !== null && status !== 'succeeded' ? epochSeconds(done) : 0,
    ...(atLeast(version, '1.1') ? { delivery_count: 0 } : {}),
    dpus: q.dpu,
  };
}

/** Source names as the archive spells them; an empty list names none. */
function sourceNames(list: readonly string[] | undefined): string[] | undefined {
  const names = historicsSourceNames(list);
  return names === undefined || names.length === 0 ? undefined : names;
}

async function observe(ctx: CallContext): Promise<HistoricsQueries> {
  return (await ctx.uow.execute(historicsDecider, stream(ctx), { type: 'ObserveHistorics', at: ctx.now })).state;
}

export const historicsHandlers: HandlerTable = {
  async 'historics.prepare'(ctx) {
    const p = paramsOf(ctx, 'historics.prepare');
    const { hash, start, end, name } = p;
    const sources = sourceNames(p.sources);
    if (sources === undefined) throw new BadRequest("Missing param 'sources'");
    const sample = p.sample ?? 100;
    checkHistoricsSpan(start, end);
    const filter = await namedFilter(ctx.uow, hash);
    const known = await ctx.uow.load(historicsDecider, stream(ctx));
    const id = freshId(ctx.ids, 20, (x) => known.byId[x] !== undefined || known.deleted[x] !== undefined);
    const dpu = historicsDpu(filter.cost().dpu, start, end);
    const { state } = await ctx.uow.execute(historicsDecider, stream(ctx), {
      type: 'PrepareHistorics',
      id,
      hash: filter.hash,
      name,
      start,
      end,
      sources,
      sample,
      dpu,
      at: ctx.now,
      holdLimit: ctx.account.package.historics_queries,
    });
    const q = state.byId[id]!;
    return { body: { id, dpus: dpu, availability: historicsAvailability(q.start, q.end, q.sources, ctx.now) } };
  },

  async 'historics.start'(ctx) {
    await ctx.uow.execute(historicsDecider, stream(ctx), { type: 'StartHistorics', id: paramsOf(ctx, 'historics.start').id, at: ctx.now });
    return { status: 204 };
  },

  async 'historics.pause'(ctx) {
    const { reason, id } = paramsOf(ctx, 'historics.pause');
    await ctx.uow.execute(historicsDecider, stream(ctx), { type: 'PauseHistorics', id, at: ctx.now, ...(reason !== undefined ? { reason } : {}) });
    return { status: 204 };
  },

  async 'historics.resume'(ctx) {
    await ctx.uow.execute(historicsDecider, stream(ctx), { type: 'ResumeHistorics', id: paramsOf(ctx, 'historics.resume').id, at: ctx.now });
    return { status: 204 };
  },

  async 'historics.stop'(ctx) {
    const { reason, id } = paramsOf(ctx, 'historics.stop');
    await ctx.uow.execute(historicsDecider, stream(ctx), { type: 'StopHistorics', id, at: ctx.now, ...(reason !== undefined ? { reason } : {}) });
    return { status: 204 };
  },

  async 'historics.update'(ctx) {
    const { id, name } = paramsOf(ctx, 'historics.update');
    await ctx.uow.execute(historicsDecider, stream(ctx), { type: 'RenameHistorics', id, name, at: ctx.now });
    return { status: 204 };
  },

  async 'historics.delete'(ctx) {
    const { id } = paramsOf(ctx, 'historics.delete');
    // The recorded service words this 404 differently from `get`'s.
    existingHistoricsQuery(await ctx.uow.load(historicsDecider, stream(ctx)), id, (x) => `No historics found with the ID ${x} `);
    await ctx.uow.execute(historicsDecider, stream(ctx), { type: 'DeleteHistorics', id, at: ctx.now });
    return { status: 204 };
  },

  async 'historics.get'(ctx) {
    const p = paramsOf(ctx, 'historics.get');
    const state = await observe(ctx);
    const id = p.id;
    if (id !== undefined) return { body: historicsView(existingHistoricsQuery(state, id), ctx.now, ctx.version) };
    const all = state.order.map((x) => state.byId[x]!);
    const shown = pageOf(all, readPaging({ page: p.page, per_page: p.max }, HISTORICS_PAGING));
    return { body: { data: shown.items.map((q) => historicsView(q, ctx.now, ctx.version)), count: shown.count } };
  },

  async 'historics.status'(ctx) {
    const p = paramsOf(ctx, 'historics.status');
    const { start, end } = p;
    checkHistoricsSpan(start, end);
    const sources = sourceNames(p.sources) ?? [...HISTORICS_SOURCES];
    checkHistoricsSources(sources);
    return { body: historicsAvailabilityByDay(start, end, sources, ctx.now) };
  },
};
