import { defaultService, namedService } from '../accounting/package-service.ts';
import { BadRequest, oneOf } from '../calls/errors.ts';
import type { CallContext, HandlerTable } from '../handling/handler.ts';
import { pageEnvelope, pageOf, readOrderDir, readPaging, sortedBy, type PagingRule } from '../calls/paging.ts';
import { namedById, recordingViews } from './recording-view.ts';
import { recordingByHash, recordingsDecider, recordingsStream, type Recording } from './recording.ts';
import { namedFilter } from '../filters/index.ts';
import { namedRecording } from './queries.ts';

/** Recordings have answered `pages: 1` for an empty list from the start; kept so no client sees a change. */
const RECORDING_PAGING: PagingRule = { minPages: 1 };

const byId = (ctx: CallContext): boolean => namedById(ctx.version);
const stream = (ctx: CallContext): string => recordingsStream(ctx.account.username);

async function start(ctx: CallContext) {
  const service = namedService(ctx) ?? defaultService(ctx.account.package);
  const state = await ctx.uow.load(recordingsDecider, stream(ctx));
  const concurrentLimit = ctx.account.package.concurrent_recordings;
  const name = ctx.params.string('name');
  if (byId(ctx) && ctx.params.has('id')) {
    const r = await namedRecording(ctx, state);
    await ctx.uow.execute(recordingsDecider, stream(ctx), { type: 'RestartRecording', id: r.id, at: ctx.now, concurrentLimit, ...(name !== undefined ? { name } : {}) });
    return { body: { id: r.id } };
  }
  const hash = ctx.params.string('hash');
  if (hash === undefined) throw new BadRequest("Missing param 'hash'");
  await namedFilter(ctx.uow, hash);
  if (name === undefined) throw new BadRequest("Missing param 'name'");
  const old = byId(ctx) ? undefined : recordingByHash(state, hash);
  if (old) {
    // Before 1.3 the hash names the recording: starting it again restarts it (409 while it runs).
    await ctx.uow.execute(recordingsDecider, stream(ctx), { type: 'RestartRecording', id: old.id, at: ctx.now, concurrentLimit, name });
    return { status: 204 };
  }
  const id = ctx.ids.hex(40);
  await ctx.uow.execute(recordingsDecider, stream(ctx), {
    type: 'StartRecording',
    id,
    hash,
    name,
    service,
    at: ctx.now,
    identityId: ctx.identityId,
    concurrentLimit,
    holdLimit: ctx.account.package.recordings,
  });
  return byId(ctx) ? { body: { id } } : { status: 204 };
}

async function stop(ctx: CallContext) {
  namedService(ctx);
  const r = await namedRecording(ctx);
  await ctx.uow.execute(recordingsDecider, stream(ctx), { type: 'StopRecording', id: r.id, at: ctx.now });
  return { status: 204 };
}

async function update(ctx: CallContext) {
  namedService(ctx);
  const r = await namedRecording(ctx);
  const name = ctx.params.string('name');
  // Before 1.3 the hash names the recording, so only the name can change.
  const hash = byId(ctx) ? ctx.params.string('hash') : undefined;
  if (hash === undefined && name === undefined) throw new BadRequest('Give a new hash, a new name or both');
  if (hash !== undefined) await namedFilter(ctx.uow, hash);
  await ctx.uow.execute(recordingsDecider, stream(ctx), {
    type: 'UpdateRecording',
    id: r.id,
    at: ctx.now,
    ...(hash !== undefined ? { hash } : {}),
    ...(name !== undefined ? { name } : {}),
  });
  return { status: 204 };
}

const ORDER_BY = ['created_at', 'start', 'name', 'status'] as const;

async function get(ctx: CallContext) {
  const service = namedService(ctx);
  const named = byId(ctx) ? ctx.params.has('id') : ctx.params.has('hash');
  if (named) {
    const [view] = await recordingViews(ctx, [await namedRecording(ctx)]);
    return { body: view };
  }
  const state = await ctx.uow.load(recordingsDecider, stream(ctx));
  let list = state.order.map((id) => state.byId[id]!);
  if (service !== undefined) list = list.filter((r) => r.service === service);
  if (!byId(ctx)) return { body: await recordingViews(ctx, list) };
  const paging = readPaging(ctx.params, RECORDING_PAGING);
  const orderBy = oneOf('order_by', ctx.params.string('order_by')?.toLowerCase() ?? 'created_at', ORDER_BY);
  const dir = readOrderDir(ctx.params, 'asc');
  const key = (r: Recording): string | number => (orderBy === 'created_at' ? r.createdAt : orderBy === 'start' ? r.start : orderBy === 'name' ? r.name : r.status);
  const p = pageOf(sortedBy(list, key, dir), paging, RECORDING_PAGING);
  return { body: pageEnvelope(p, 'subscriptions', await recordingViews(ctx, p.items)) };
}

/**
 * `/insight/start|stop|update|get`. Before API 1.3 a recording is named by its filter `hash`; from 1.3
 * by its `id` (docs/contract.md#versions). `{service}` (from 1.4) must be one of the package's services.
 */
export const recordingHandlers: HandlerTable = {
  'insight.start': start,
  'insight.stop': stop,
  'insight.update': update,
  'insight.get': get,
};
