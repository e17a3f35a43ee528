import { hashApiKey } from '../accounting/api-key.ts';
import { packageService } from '../accounting/package-service.ts';
import type { CallContext, HandlerTable } from '../handling/handler.ts';
import { paramsOf } from '../handling/params-of.ts';
import {
  identitiesDecider,
  identitiesStream,
  liveIdentity,
  liveLimit,
  liveToken,
  type Identities,
  type Identity,
  type IdentityLimit,
  type IdentityToken,
  type LimitFigures,
} from './identity.ts';
import { pageEnvelope, pageOf, readPaging } from '../calls/paging.ts';
import { epochSeconds } from '../calls/epoch.ts';
import { freshId } from '../calls/fresh-id.ts';

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

/** A limit's figures: absent keeps one, `null` clears it (the schema reads both). */
function figures(p: { total_allowance?: number | null | undefined; analyze_queries?: number | null | undefined }): LimitFigures {
  const out: LimitFigures = {};
  if (p.total_allowance !== undefined) out.totalAllowance = p.total_allowance;
  if (p.analyze_queries !== undefined) out.analyzeQueries = p.analyze_queries;
  return out;
}

const services = (ctx: CallContext): readonly string[] => ctx.account.package.services;

export const identityHandlers: HandlerTable = {
  async 'account.identity.create'(ctx) {
    const known = await load(ctx);
    const id = freshId(ctx.ids, 32, (x) => known.byId[x] !== undefined);
    const apiKey = freshId(ctx.ids, 32, (k) => known.byKeyHash[hashApiKey(ctx.account.salt, k)] !== undefined);
    const { label, master, status } = paramsOf(ctx, 'account.identity.create');
    const { state } = await ctx.uow.execute(identitiesDecider, stream(ctx), {
      type: 'CreateIdentity',
      id,
      label,
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
    const params = paramsOf(ctx, 'account.identity.list');
    const state = await load(ctx);
    const label = params.label;
    const live = state.order.map((id) => state.byId[id]!).filter((i) => !i.deleted && (label === undefined || i.label === label));
    const p = pageOf(live, readPaging(params));
    return { body: pageEnvelope(p, 'identities', p.items.map(identityView)) };
  },

  async 'account.identity.get'(ctx) {
    return { body: identityView(liveIdentity(await load(ctx), paramsOf(ctx, 'account.identity.get').id)) };
  },

  async 'account.identity.update'(ctx) {
    const { id, label, status, master } = paramsOf(ctx, 'account.identity.update');
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
    await ctx.uow.execute(identitiesDecider, stream(ctx), { type: 'DeleteIdentity', id: paramsOf(ctx, 'account.identity.delete').id, at: ctx.now });
    return { status: 204 };
  },

  async 'account.identity.token.list'(ctx) {
    const params = paramsOf(ctx, 'account.identity.token.list');
    const identity = liveIdentity(await load(ctx), params.identity_id);
    const tokens = Object.values(identity.tokens).filter((t) => !t.deleted).sort((a, b) => a.service.localeCompare(b.service));
    const p = pageOf(tokens, readPaging(params));
    return { body: pageEnvelope(p, 'tokens', p.items.map(tokenView)) };
  },

  async 'account.identity.token.create'(ctx) {
    const { identity_id: identityId, service, token } = paramsOf(ctx, 'account.identity.token.create');
    const { state } = await ctx.uow.execute(identitiesDecider, stream(ctx), {
      type: 'CreateToken',
      identityId,
      service,
      token,
      at: ctx.now,
      holdLimit: ctx.account.package.identity_tokens,
    });
    return { body: tokenView(state.byId[identityId]!.tokens[service]!) };
  },

  async 'account.identity.token.get'(ctx) {
    const { identity_id: identityId, service } = paramsOf(ctx, 'account.identity.token.get');
    return { body: tokenView(liveToken(liveIdentity(await load(ctx), identityId), service)) };
  },

  async 'account.identity.token.update'(ctx) {
    const { identity_id: identityId, service, token } = paramsOf(ctx, 'account.identity.token.update');
    const { state, events } = await ctx.uow.execute(identitiesDecider, stream(ctx), {
      type: 'PutToken',
      identityId,
      service,
      token,
      at: ctx.now,
      holdLimit: ctx.account.package.identity_tokens,
    });
    const created = events[0]?.type === 'IdentityTokenCreated';
    return { status: created ? 201 : 200, body: tokenView(state.byId[identityId]!.tokens[service]!) };
  },

  async 'account.identity.token.delete'(ctx) {
    const { identity_id: identityId, service } = paramsOf(ctx, 'account.identity.token.delete');
    await ctx.uow.execute(identitiesDecider, stream(ctx), {
      type: 'DeleteToken',
      identityId,
      service,
      at: ctx.now,
    });
    return { status: 204 };
  },

  async 'account.identity.limit.list'(ctx) {
    const params = paramsOf(ctx, 'account.identity.limit.list');
    const service = packageService(services(ctx), params.service);
    const state = await load(ctx);
    const limits = state.order
      .map((id) => state.byId[id]!)
      .filter((i) => !i.deleted && i.limits[service])
      .map((i) => limitView(i.id, i.limits[service]!));
    const p = pageOf(limits, readPaging(params));
    return { body: pageEnvelope(p, 'limits', p.items) };
  },

  async 'account.identity.limit.create'(ctx) {
    const p = paramsOf(ctx, 'account.identity.limit.create');
    const { identity_id: identityId, service } = p;
    const { state } = await ctx.uow.execute(identitiesDecider, stream(ctx), {
      type: 'CreateLimit',
      identityId,
      service,
      services: services(ctx),
      figures: figures(p),
      at: ctx.now,
    });
    return { body: limitView(identityId, state.byId[identityId]!.limits[service]!) };
  },

  async 'account.identity.limit.get'(ctx) {
    const p = paramsOf(ctx, 'account.identity.limit.get');
    const identity = liveIdentity(await load(ctx), p.identity_id);
    const service = packageService(services(ctx), p.service);
    return { body: limitView(identity.id, liveLimit(identity, service)) };
  },

  async 'account.identity.limit.update'(ctx) {
    const p = paramsOf(ctx, 'account.identity.limit.update');
    const { identity_id: identityId, service } = p;
    const { state, events } = await ctx.uow.execute(identitiesDecider, stream(ctx), {
      type: 'PutLimit',
      identityId,
      service,
      services: services(ctx),
      figures: figures(p),
      at: ctx.now,
    });
    const created = events[0]?.type === 'IdentityLimitCreated';
    return { status: created ? 201 : 200, body: limitView(identityId, state.byId[identityId]!.limits[service]!) };
  },

  async 'account.identity.limit.delete'(ctx) {
    const { identity_id: identityId, service } = paramsOf(ctx, 'account.identity.limit.delete');
    await ctx.uow.execute(identitiesDecider, stream(ctx), {
      type: 'DeleteLimit',
      identityId,
      service,
      services: services(ctx),
      at: ctx.now,
    });
    return { status: 204 };
  },
};
