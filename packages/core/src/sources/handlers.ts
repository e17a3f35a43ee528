import { BadRequest } from '../calls/errors.ts';
import type { CallContext, HandlerTable } from '../handling/handler.ts';
import { pageEnvelope, pageOf, readPaging, type PagingRule } from '../calls/paging.ts';
import type { Params } from '../calls/params.ts';
import { parseIngestionBody } from './ingestion-body.ts';
import { DEFAULT_INGESTION_LIMITS, ingestionHeaders, ingestionWindowAt, type IngestionLimits } from './ingestion-limit.ts';
import {
  liveSource,
  sourcesDecider,
  sourcesStream,
  type ManagedSource,
  type SourceAuth,
  type SourceCommand,
  type SourceResource,
  type SourcesState,
} from './managed-source.ts';
import { recordIngested } from './recorded.ts';
import {
  SOURCE_TYPES,
  readAuth,
  readIds,
  readResources,
  readSourceParameters,
  sourceTypeOf,
  type SourceAuthInput,
  type SourceResourceInput,
} from './source-types.ts';
import { epochSeconds } from '../calls/epoch.ts';

const isEmpty = (o: Record<string, unknown>): boolean => Object.keys(o).length === 0;

/** The source object of docs/clients.md#managed-source (empty `parameters` are written `[]`, as recorded). */
export function sourceView(s: ManagedSource): Record<string, unknown> {
  return {
    id: s.id,
    status: s.status,
    source_type: s.source_type,
    name: s.name,
    parameters: isEmpty(s.parameters) ? [] : s.parameters,
    auth: s.auth.map((a) => ({ identity_id: a.identity_id, expires_at: a.expires_at, parameters: a.parameters })),
    resources: s.resources.map((r) => ({ resource_id: r.resource_id, parameters: r.parameters })),
    created_at: epochSeconds(s.created_at),
  };
}

const stream = (ctx: CallContext): string => sourcesStream(ctx.account.username);

async function run(ctx: CallContext, command: SourceCommand): Promise<ManagedSource> {
  const { state } = await ctx.uow.execute(sourcesDecider, stream(ctx), command);
  return state.sources[command.id]!;
}

const withAuthIds = (ctx: CallContext, auth: SourceAuthInput[]): SourceAuth[] =>
  auth.map((a) => ({ identity_id: ctx.ids.hex(32), expires_at: a.expires_at, parameters: a.parameters }));
const withResourceIds = (ctx: CallContext, resources: SourceResourceInput[]): SourceResource[] =>
  resources.map((r) => ({ resource_id: ctx.ids.hex(32), parameters: r.parameters }));

const SOURCE_PAGING: PagingRule = { defaultSize: 20, maxSize: 1000 };

function envelope<T>(items: T[], p: Params, key: string): Record<string, unknown> {
  const page = pageOf(items, readPaging(p, SOURCE_PAGING));
  return pageEnvelope(page, key, page.items);
}

/** Whether a create or update asked to skip checking the tokens (`validate=false`). */
const validating = (p: Params): boolean => p.bool('validate') ?? true;

/** The managed-source endpoints and ingestion, with the per-source per-minute ingestion limit. */
export function sourceHandlers(limits: IngestionLimits = DEFAULT_INGESTION_LIMITS): HandlerTable {
  return {
    'source.create': async (ctx) => {
      const p = ctx.params;
      const typeName = p.string('source_type');
      const type = sourceTypeOf(typeName);
      const name = p.requireString('name', { max: 255 });
      const parameters = readSourceParameters(p, type) ?? {};
      const resources = readResources(p, 'resources', type) ?? [];
      const auth = readAuth(p, 'auth', ctx.now) ?? [];
      if (type.needsAuth && auth.length === 0 && validating(p)) {
        throw new BadRequest(`Authentication failed: a ${typeName} source needs at least one auth entry with a token`);
      }
      const source = await run(ctx, {
        type: 'CreateSource',
        id: ctx.ids.hex(32),
        source_type: typeName!,
        name,
        parameters,
        resources: withResourceIds(ctx, resources),
        auth: withAuthIds(ctx, auth),
        at: ctx.now,
        holdLimit: ctx.account.package.managed_sources,
      });
      return { status: 201, body: sourceView(source) };
    },

    'source.start': async (ctx) => ({ body: sourceView(await run(ctx, { type: 'StartSource', id: ctx.params.requireString('id'), at: ctx.now })) }),

    'source.stop': async (ctx) => ({ body: sourceView(await run(ctx, { type: 'StopSource', id: ctx.params.requireString('id'), at: ctx.now })) }),

    'source.update': async (ctx) => {
      const p = ctx.params;
      const id = p.requireString('id');
      const current = await existing(ctx, id);
      const typeName = p.string('source_type') ?? current.source_type;
      const type = sourceTypeOf(typeName);
      const resources = readResources(p, 'resources', type);
      const auth = readAuth(p, 'auth', ctx.now);
      const source = await run(ctx, {
        type: 'UpdateSource',
        id,
        at: ctx.now,
        changes: {
          source_type: p.string('source_type'),
          name: p.string('name', { max: 255 }),
          parameters: readSourceParameters(p, type),
          resources: resources && withResourceIds(ctx, resources),
          auth: auth && withAuthIds(ctx, auth),
        },
      });
      return { status: 202, body: sourceView(source) };
    },

    'source.delete': async (ctx) => {
      await run(ctx, { type: 'DeleteSource', id: ctx.params.requireString('id'), at: ctx.now });
      return { status: 204 };
    },

    'source.get': async (ctx) => {
      const p = ctx.params;
      const state: SourcesState = await ctx.uow.load(sourcesDecider, stream(ctx));
      const id = p.string('id');
      if (id !== undefined) {
        return { body: sourceView(await existing(ctx, id)) };
      }
      const type = p.string('source_type');
      if (type !== undefined) sourceTypeOf(type);
      const list = state.order.map((i) => state.sources[i]!).filter((s) => type === undefined || s.source_type === type);
      return { body: envelope(list.map(sourceView), p, 'sources') };
    },

    'source.log': async (ctx) => {
      const p = ctx.params;
      const s = await existing(ctx, p.requireString('id'));
      const entries = [...s.log].reverse().map((e) => ({ id: e.id, event_time: epochSeconds(e.at), success: e.success, message: e.message }));
      return { body: envelope(entries, p, 'log_entries') };
    },

    'source.auth.add': async (ctx) => {
      const auth = readAuth(ctx.params, 'auth', ctx.now);
      if (!auth) throw new BadRequest("Missing param 'auth'");
      return { body: sourceView(await run(ctx, { type: 'AddSourceAuth', id: ctx.params.requireString('id'), at: ctx.now, auth: withAuthIds(ctx, auth) })) };
    },

    'source.auth.remove': async (ctx) => ({
      body: sourceView(await run(ctx, { type: 'RemoveSourceAuth', id: ctx.params.requireString('id'), at: ctx.now, auth_ids: readIds(ctx.params, 'auth_ids') })),
    }),

    'source.resource.add': async (ctx) => {
      const p = ctx.params;
      const id = p.requireString('id');
      const type = sourceTypeOf((await existing(ctx, id)).source_type);
      const resources = readResources(p, 'resources', type);
      if (!resources) throw new BadRequest("Missing param 'resources'");
      return { body: sourceView(await run(ctx, { type: 'AddSourceResources', id, at: ctx.now, resources: withResourceIds(ctx, resources) })) };
    },

    'source.resource.remove': async (ctx) => ({
      body: sourceView(await run(ctx, { type: 'RemoveSourceResources', id: ctx.params.requireString('id'), at: ctx.now, resource_ids: readIds(ctx.params, 'resource_ids') })),
    }),

    'source.category.get': () => {
      const categories = Object.entries(SOURCE_TYPES).map(([source_type, t]) => ({ source_type, name: t.title, category: t.category }));
      return { body: { count: categories.length, categories } };
    },

    ingest: async (ctx) => {
      const id = ctx.params.requireString('source_id');
      const batch = parseIngestionBody(ctx.call.body);
      const source = await run(ctx, { type: 'Ingest', id, at: ctx.now, bytes: batch.bytes, accepted: batch.interactions.length, limits });
      await recordIngested(ctx, source, batch.interactions, batch.sizes);
      return {
        body: { accepted: batch.interactions.length, total_message_bytes: batch.bytes },
        headers: ingestionHeaders(ingestionWindowAt(source.ingestion, ctx.now), limits, ctx.now),
      };
    },
  };
}

/** The caller's source, or a 404 before anything else is read from the request. */
async function existing(ctx: CallContext, id: string): Promise<ManagedSource> {
  return liveSource(await ctx.uow.load(sourcesDecider, stream(ctx)), id);
}

export const SOURCE_HANDLERS: HandlerTable = sourceHandlers();
