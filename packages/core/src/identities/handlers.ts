import { hashApiKey } from '../accounting/api-key.ts';
import { requireService } from '../accounting/package-service.ts';
import { BadRequest } from '../calls/errors.ts';
import type { CallContext, HandlerTable } from '../handling/handler.ts';
import {
  identitiesDecider,
  identitiesStream,
  liveIdentity,
  liveLimit,
  liveToken,
  type Identities,
  type Identity,
  type IdentityLimit,
  type IdentityStatus,
  type IdentityToken,
  type LimitFigures,
} from './identity.ts';
import { pageEnvelope, pageOf, readPaging } from '../calls/paging.ts';
import { epochSeconds } from '../calls/epoch.ts';
import { freshId } from '../calls/fresh-id.ts';

const HASH32 = /^[a-f0-9]{32}$/;

export function identityView(i: Identity): Record<string, unknown> {
  return {
    id: i.id,
    label: i.label,
    status: i.status,
    master: i.master,
    created_at: epochSeconds(i.createdAt),
    updated_at: epochSeconds(i.updatedAt),
    expires_at: null,
  };
}

export function tokenView(t: IdentityToken): Record<string, unknown> {
  return { service: t.service, token: t.token, created_at: epochSeconds(t.createdAt), updated_at: epochSeconds(t.updatedAt), expires_at: null };
}

/** `id` is the identity's id, as the service answered it. */
export function limitView(identityId: string, l: IdentityLimit): Record<string, unknown> {
  return { id: identityId, service: l.service, total_allowance: l.totalAllowance, analyze_queries: l.analyzeQueries };
}

const stream = (ctx: CallContext) => identitiesStream(ctx.account.username);
const load = (ctx: CallContext): Identities | Promise<Identities> => ctx.uow.load(identitiesDecider, stream(ctx));

/** The identity named by `{id}` (unknown ids answer 404 like any unknown identity). */
function pathId(ctx: CallContext): string {
  return ctx.params.requireString('id');
}

/** The identity named by `{identity_id}` on token and limit paths: a malformed id is a 400 there. */
function identityIdParam(ctx: CallContext): string {
  const id = ctx.params.requireString('identity_id');
  if (!HASH32.test(id)) throw new BadRequest('identity_id must be a valid hash');
  return id;
}

function statusParam(ctx: CallContext): IdentityStatus | undefined {
  return ctx.params.string('status') as IdentityStatus | undefined;
}

/** A limit figure: absent keeps, `null` (or JSON null) clears, else a whole number. */
function figure(ctx: CallContext, name: string): number | null | undefined {
  if (!(name in ctx.params.raw)) return undefined;
  const raw = ctx.params.raw[name];
  if (raw === null || raw === 'null') return null;
  if (raw === '') return undefined;
  return ctx.params.int(name, { min: 0 });
}

function figures(ctx: CallContext): LimitFigures {
  const out: LimitFigures = {};
  const total = figure(ctx, 'total_allowance');
  const analyze = figure(ctx, 'analyze_queries');
  if (total !== undefined) out.totalAllowance = total;
  if (analyze !== undefined) out.analyzeQueries = analyze;
  return out;
}

const services = (ctx: CallContext): readonly string[] => ctx.account.package.services;

export const identityHandlers: HandlerTable = {
  async 'account.identity.create'(ctx) {
    const known = await load(ctx);
    const id = freshId(ctx.ids, 32, (x) => known.byId[x] !== undefined);
    const apiKey = freshId(ctx.ids, 32, (k) => known.byKeyHash[hashApiKey(ctx.account.salt, k)] !== undefined);
    const master = ctx.params.bool('master');
    const status = statusParam(ctx);
    const { state } = await ctx.uow.execute(identitiesDecider, stream(ctx), {
      type: 'CreateIdentity',
      id,
      label: ctx.params.requireString('label'),
      keyHash: hashApiKey(ctx.account.salt, apiKey),
      ...(status !== undefined ? { status } : {}),
      ...(master !== undefined ? { master } : {}),
      at: ctx.now,
      holdLimit: ctx.account.package.identities,
    });
    // The key is shown once, here: only its digest is kept.
    return { body: { ...identityView(state.byId[id]!), api_key: apiKey } };
  },

  async 'account.identity.list'(ctx) {
    const state = await load(ctx);
    const label = ctx.params.string('label');
    const live = state.order.map((id) => state.byId[id]!).filter((i) => !i.deleted && (label === undefined || i.label === label));
    const p = pageOf(live, readPaging(ctx.params));
    return { body: pageEnvelope(p, 'identities', p.items.map(identityView)) };
  },

  async 'account.identity.get'(ctx) {
    return { body: identityView(liveIdentity(await load(ctx), pathId(ctx))) };
  },

  async 'account.identity.update'(ctx) {
    const id = pathId(ctx);
    const label = ctx.params.string('label');
    const status = statusParam(ctx);
    const master = ctx.params.bool('master');
    const { state } = await ctx.uow.execute(identitiesDecider, stream(ctx), {
      type: 'UpdateIdentity',
      id,
      ...(label !== undefined ? { label } : {}),
      ...(status !== undefined ? { status } : {}),
      ...(master !== undefined ? { master } : {}),
      at: ctx.now,
    });
    return { body: identityView(state.byId[id]!) };
  },

  async 'account.identity.delete'(ctx) {
    await ctx.uow.execute(identitiesDecider, stream(ctx), { type: 'DeleteIdentity', id: pathId(ctx), at: ctx.now });
    return { status: 204 };
  },

  async 'account.identity.token.list'(ctx) {
    const identity = liveIdentity(await load(ctx), identityIdParam(ctx));
    const tokens = Object.values(identity.tokens).filter((t) => !t.deleted).sort((a, b) => a.service.localeCompare(b.service));
    const p = pageOf(tokens, readPaging(ctx.params));
    return { body: pageEnvelope(p, 'tokens', p.items.map(tokenView)) };
  },

  async 'account.identity.token.create'(ctx) {
    const identityId = identityIdParam(ctx);
    const service = ctx.params.requireString('service');
    const { state } = await ctx.uow.execute(identitiesDecider, stream(ctx), {
      type: 'CreateToken',
      identityId,
      service,
      token: ctx.params.requireString('token'),
      at: ctx.now,
      holdLimit: ctx.account.package.identity_tokens,
    });
    return { body: tokenView(state.byId[identityId]!.tokens[service]!) };
  },

  async 'account.identity.token.get'(ctx) {
    const identity = liveIdentity(await load(ctx), identityIdParam(ctx));
    return { body: tokenView(liveToken(identity, ctx.params.requireString('service'))) };
  },

  async 'account.identity.token.update'(ctx) {
    const identityId = identityIdParam(ctx);
    const service = ctx.params.requireString('service');
    const { state, events } = await ctx.uow.execute(identitiesDecider, stream(ctx), {
      type: 'PutToken',
      identityId,
      service,
      token: ctx.params.requireString('token'),
      at: ctx.now,
      holdLimit: ctx.account.package.identity_tokens,
    });
    const created = events[0]?.type === 'IdentityTokenCreated';
    return { status: created ? 201 : 200, body: tokenView(state.byId[identityId]!.tokens[service]!) };
  },

  async 'account.identity.token.delete'(ctx) {
    await ctx.uow.execute(identitiesDecider, stream(ctx), {
      type: 'DeleteToken',
      identityId: identityIdParam(ctx),
      service: ctx.params.requireString('service'),
      at: ctx.now,
    });
    return { status: 204 };
  },

  async 'account.identity.limit.list'(ctx) {
    const service = requireService(ctx);
    const state = await load(ctx);
    const limits = state.order
      .map((id) => state.byId[id]!)
      .filter((i) => !i.deleted && i.limits[service])
      .map((i) => limitView(i.id, i.limits[service]!));
    const p = pageOf(limits, readPaging(ctx.params));
    return { body: pageEnvelope(p, 'limits', p.items) };
  },

  async 'account.identity.limit.create'(ctx) {
    const identityId = identityIdParam(ctx);
    const service = ctx.params.requireString('service');
    const { state } = await ctx.uow.execute(identitiesDecider, stream(ctx), {
      type: 'CreateLimit',
      identityId,
      service,
      services: services(ctx),
      figures: figures(ctx),
      at: ctx.now,
    });
    return { body: limitView(identityId, state.byId[identityId]!.limits[service]!) };
  },

  async 'account.identity.limit.get'(ctx) {
    const identity = liveIdentity(await load(ctx), identityIdParam(ctx));
    const service = requireService(ctx);
    return { body: limitView(identity.id, liveLimit(identity, service)) };
  },

  async 'account.identity.limit.update'(ctx) {
    const identityId = identityIdParam(ctx);
    const service = ctx.params.requireString('service');
    const { state, events } = await ctx.uow.execute(identitiesDecider, stream(ctx), {
      type: 'PutLimit',
      identityId,
      service,
      services: services(ctx),
      figures: figures(ctx),
      at: ctx.now,
    });
    const created = events[0]?.type === 'IdentityLimitCreated';
    return { status: created ? 201 : 200, body: limitView(identityId, state.byId[identityId]!.limits[service]!) };
  },

  async 'account.identity.limit.delete'(ctx) {
    await ctx.uow.execute(identitiesDecider, stream(ctx), {
      type: 'DeleteLimit',
      identityId: identityIdParam(ctx),
      service: ctx.params.requireString('service'),
      services: services(ctx),
      at: ctx.now,
    });
    return { status: 204 };
  },
};
