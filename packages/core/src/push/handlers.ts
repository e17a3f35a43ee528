import { atLeast } from '../catalogue/versions.ts';
import { BadRequest, oneOf } from '../calls/errors.ts';
import type { CallContext, HandlerTable } from '../handling/handler.ts';
import { pageInOrder, pageOf, readOrderDir, readPaging, sortedBy, type PagingRule } from '../calls/paging.ts';
import { isJsonObject, type Params } from '../calls/params.ts';
import { HASH } from '../filters/filter-registry.ts';
import { fnv1a } from './fnv.ts';
import { checkFeedSource, subscriptionFeed, type PushFeed } from './feed.ts';
import { pullFormatOf, validateOutput } from './output-types.ts';
import { DEFAULT_PULL_SIZE, MAX_PULL_SIZE, decodeCursor, encodeCursor, pageFrom, renderPage } from './pull-page.ts';
import {
  INITIAL_STATUSES,
  livePushSubscription,
  logAt,
  pushDecider,
  pushStream,
  statusAt,
  type PushCommand,
  type PushState,
  type PushStatus,
  type PushSubscription,
} from './push-subscription.ts';
import { epochSeconds } from '../calls/epoch.ts';
import { PushConnectors } from './connector.ts';
import { deliveryOf } from './delivery.ts';
import { waitingBytes } from './batch.ts';

const HISTORICS_ID = /^[0-9a-f]{20}$/;

/** A stable small number per account, for the `user_id` field clients read as an int. */
export function userIdOf(username: string): number {
  return (fnv1a(username) % 9_000_000) + 1000;
}

/** The subscription object of docs/clients.md#push-subscription, as it stands at `now`. */
export function subscriptionView(
  sub: PushSubscription,
  username: string,
  now: number,
  extra: { count?: boolean; endAsZero?: boolean; remainingBytes?: number | null } = {},
): Record<string, unknown> {
  return {
    id: sub.id,
    name: sub.name,
    output_type: sub.output_type,
    output_params: sub.output_params,
    created_at: epochSeconds(sub.created_at),
    user_id: userIdOf(username),
    hash: sub.hash,
    hash_type: sub.hash_type,
    status: statusAt(sub, now),
    last_request: sub.last_request === null ? null : epochSeconds(sub.last_request),
    last_success: sub.last_success === null ? null : epochSeconds(sub.last_success),
    remaining_bytes: extra.remainingBytes ?? null,
    lost_data: deliveryOf(sub).lost_data,
    start: epochSeconds(sub.start),
    end: sub.end === null ? (extra.endAsZero ? 0 : null) : epochSeconds(sub.end),
    ...(extra.count ? { interaction_count: sub.delivered } : {}),
  };
}

const stream = (ctx: CallContext): string => pushStream(ctx.account.username);

async function load(ctx: CallContext): Promise<PushState> {
  return ctx.uow.load(pushDecider, stream(ctx));
}

async function run(ctx: CallContext, command: PushCommand): Promise<PushSubscription> {
  const { state } = await ctx.uow.execute(pushDecider, stream(ctx), command);
  return state.subscriptions[command.id]!;
}

/** `start`/`end` of 0 mean "not given", as clients send them. */
function time(p: Params, name: string): number | undefined {
  const ms = p.epochMs(name);
  return ms === 0 ? undefined : ms;
}

/** One client sends the page size as `perPage` (docs/clients.md, push/log). */
const PUSH_PAGING: PagingRule = { sizeParams: ['per_page', 'perPage'], defaultSize: 20, maxSize: 1000 };

/** Nested settings merge one level down, so an update may name only the settings it changes. */
function mergeSettings(old: Record<string, unknown>, changes: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...old };
  for (const [k, v] of Object.entries(changes)) {
    const prev = out[k];
    out[k] = isJsonObject(prev) && isJsonObject(v) ? { ...prev, ...v } : v;
  }
  return out;
}


/**
 * The push endpoints, fed by `feed` (the platform's recordings and historics by default). Output types
 * with a connector are pinged by validate and create, and report `remaining_bytes`.
 */
export function pushHandlers(feed: PushFeed = subscriptionFeed, connectors: PushConnectors = new PushConnectors()): HandlerTable {
  /** Bytes queued for a connector-delivered subscription; `null` where no connector delivers. */
  const remaining = async (ctx: CallContext, sub: PushSubscription): Promise<number | null> => {
    if (!connectors.get(sub.output_type)) return null;
    const until = sub.end !== null ? Math.min(sub.end, ctx.now) : ctx.now;
    return waitingBytes(await feed(ctx, sub, sub.start, until), sub.acked);
  };
  return {
    'push.validate': async (ctx) => {
      const outputType = ctx.params.string('output_type');
      const settings = validateOutput(outputType, ctx.params.object('output_params'));
      await connectors.admit(outputType!, settings, pullFormatOf(settings), true);
      return { body: { success: true, message: 'Validated successfully' } };
    },

    'push.create': async (ctx) => {
      const p = ctx.params;
      const name = p.requireString('name', { max: 255 });
      const outputType = p.string('output_type');
      const outputParams = validateOutput(outputType, p.object('output_params'));
      let historicsId = p.string('historics_id');
      const playback = p.string('playback_id');
      if (playback !== undefined) {
        if (atLeast(ctx.version, '1.2')) throw new BadRequest('playback_id is not accepted from API 1.2; use historics_id');
        if (historicsId !== undefined && historicsId !== playback) throw new BadRequest('playback_id and historics_id name different queries');
        historicsId = playback;
      }
      const hash = p.string('hash');
      if ((hash === undefined) === (historicsId === undefined)) throw new BadRequest('Give exactly one of hash or historics_id');
      if (hash !== undefined && !HASH.test(hash)) throw new BadRequest('hash must be a valid hash (32 hex characters)');
      if (historicsId !== undefined && !HISTORICS_ID.test(historicsId)) throw new BadRequest('historics_id must be a valid historics id (20 hex characters)');
      const initial = p.string('initial_status');
      if (initial !== undefined && !INITIAL_STATUSES.includes(initial as PushStatus)) {
        throw new BadRequest(`initial_status must be one of ${INITIAL_STATUSES.join(', ')}`);
      }
      await checkFeedSource(ctx, hash !== undefined ? 'stream' : 'historic', (hash ?? historicsId)!);
      await connectors.admit(outputType!, outputParams, pullFormatOf(outputParams), true);
      const sub = await run(ctx, {
        type: 'CreatePush',
        id: ctx.ids.hex(32),
        name,
        output_type: outputType!,
        output_params: outputParams,
        hash: (hash ?? historicsId)!,
        hash_type: hash !== undefined ? 'stream' : 'historic',
        initial_status: initial as PushStatus | undefined,
        start: time(p, 'start'),
        end: time(p, 'end'),
        at: ctx.now,
        holdLimit: ctx.account.package.push_subscriptions,
        connector: connectors.get(outputType!) !== undefined,
      });
      return { body: subscriptionView(sub, ctx.account.username, ctx.now, { endAsZero: true }) };
    },

    'push.pause': async (ctx) => {
      const sub = await run(ctx, { type: 'PausePush', id: ctx.params.requireString('id'), at: ctx.now });
      return { body: subscriptionView(sub, ctx.account.username, ctx.now) };
    },

    'push.resume': async (ctx) => {
      const sub = await run(ctx, { type: 'ResumePush', id: ctx.params.requireString('id'), at: ctx.now });
      return { body: subscriptionView(sub, ctx.account.username, ctx.now) };
    },

    'push.stop': async (ctx) => {
      const sub = await run(ctx, { type: 'StopPush', id: ctx.params.requireString('id'), at: ctx.now });
      return { body: subscriptionView(sub, ctx.account.username, ctx.now) };
    },

    'push.update': async (ctx) => {
      const p = ctx.params;
      const id = p.requireString('id');
      const current = livePushSubscription(await load(ctx), id);
      const outputType = p.string('output_type');
      if (outputType !== undefined && outputType !== current.output_type) {
        throw new BadRequest(`output_type cannot be changed (the subscription delivers to ${current.output_type})`);
      }
      const changes = p.object('output_params');
      const outputParams = changes === undefined ? undefined : validateOutput(current.output_type, mergeSettings(current.output_params, changes));
      if (outputParams) await connectors.admit(current.output_type, outputParams, pullFormatOf(outputParams), false);
      const sub = await run(ctx, { type: 'UpdatePush', id, at: ctx.now, name: p.string('name', { max: 255 }), output_params: outputParams });
      return { body: subscriptionView(sub, ctx.account.username, ctx.now) };
    },

    'push.delete': async (ctx) => {
      await run(ctx, { type: 'DeletePush', id: ctx.params.requireString('id'), at: ctx.now });
      return { status: 204 };
    },

    'push.log': async (ctx) => {
      const p = ctx.params;
      const state = await load(ctx);
      const id = p.string('id');
      const subs = id !== undefined ? [livePushSubscription(state, id)] : state.order.map((i) => state.subscriptions[i]!);
      oneOf('order_by', p.string('order_by')?.toLowerCase() ?? 'request_time', ['request_time']);
      const paging = readPaging(p, PUSH_PAGING);
      const entries = subs.flatMap((sub) => logAt(sub, ctx.now).map((e, i) => ({ ...e, i, sub: sub.id })));
      // Time, then place in the subscription's log, compared as numbers: a list of every subscription's
      // log (up to push_subscriptions × PUSH_LOG_KEPT entries) sorts without a string per comparison.
      // Only the page asked for is put in order (a first page of 20 does not sort every entry).
      const sign = readOrderDir(p, 'desc') === 'asc' ? 1 : -1;
      const page = pageInOrder(entries, (a, b) => sign * (a.at - b.at || a.i - b.i), paging);
      return {
        body: {
          success: true,
          count: page.count,
          log_entries: page.items.map((e) => ({
            request_time: epochSeconds(e.at),
            success: e.success,
            subscription_id: e.sub,
            message: e.message,
          })),
        },
      };
    },

    'push.get': async (ctx) => {
      const p = ctx.params;
      const state = await load(ctx);
      const who = ctx.account.username;
      const id = p.string('id');
      if (id !== undefined) {
        const sub = livePushSubscription(state, id);
        return { body: subscriptionView(sub, who, ctx.now, { count: true, remainingBytes: await remaining(ctx, sub) }) };
      }
      const hash = p.string('hash');
      const historicsId = p.string('historics_id') ?? p.string('historic_id');
      const includeFinished = p.bool('include_finished') ?? false;
      const keys: Record<string, (s: PushSubscription) => number | string> = {
        created_at: (s) => s.created_at,
        id: (s) => s.id,
        request_time: (s) => s.last_request ?? 0,
      };
      const key = keys[oneOf('order_by', p.string('order_by')?.toLowerCase() ?? 'created_at', Object.keys(keys))]!;
      const paging = readPaging(p, PUSH_PAGING);
      const matching = state.order
        .map((i) => state.subscriptions[i]!)
        .filter((s) => (hash === undefined || (s.hash_type === 'stream' && s.hash === hash)))
        .filter((s) => (historicsId === undefined || (s.hash_type === 'historic' && s.hash === historicsId)))
        .filter((s) => includeFinished || statusAt(s, ctx.now) !== 'finished');
      const ordered = sortedBy(matching, key, readOrderDir(p, 'asc'));
      const shown = pageOf(ordered, paging).items;
      const bytes = await Promise.all(shown.map((s) => remaining(ctx, s)));
      return {
        body: {
          subscriptions: shown.map((s, i) => subscriptionView(s, who, ctx.now, { count: true, remainingBytes: bytes[i]! })),
          count: ordered.length,
        },
      };
    },

    'push.pull': async (ctx) => {
      const p = ctx.params;
      const id = p.requireString('id');
      const sub = livePushSubscription(await load(ctx), id);
      if (sub.output_type !== 'pull') throw new BadRequest(`Push subscription ${id} delivers by ${sub.output_type}, not pull`);
      const size = p.int('size', { min: 1, max: MAX_PULL_SIZE }) ?? DEFAULT_PULL_SIZE;
      const cursor = p.string('cursor');
      const from = cursor !== undefined ? decodeCursor(id, cursor) : sub.acked;
      if (from > sub.acked) throw new BadRequest(`cursor ${cursor} is ahead of anything delivered`);
      const format = pullFormatOf(sub.output_params);
      const headers: Record<string, string> = { 'X-DataSift-Format': format, 'X-DataSift-Cursor-Current': encodeCursor(id, from) };
      const nothing = { status: 204, headers: { ...headers, 'X-DataSift-Cursor-Next': headers['X-DataSift-Cursor-Current']! } };
      const status = statusAt(sub, ctx.now);
      if (status === 'paused' || status === 'waiting_for_start') return nothing;
      const served = sub.pages[String(from)];
      const until = sub.end !== null ? Math.min(sub.end, ctx.now) : ctx.now;
      const items = await feed(ctx, sub, sub.start, until);
      const page = pageFrom(items, from, size, served);
      if (!page) return nothing;
      // Only a page that moves delivery on is recorded: a free call re-reading old positions (a cursor whose
      // page is no longer kept) is served as read and writes nothing, so pulls write at most once per page
      // of new data.
      if (!served && page.to > sub.acked) await run(ctx, { type: 'ServePullPage', id, from, to: page.to, bytes: page.bytes, at: ctx.now });
      return {
        status: 200,
        body: renderPage(format, sub, items.slice(from, page.to), served?.at ?? ctx.now),
        headers: { ...headers, 'X-DataSift-Cursor-Next': encodeCursor(id, page.to) },
      };
    },
  };
}

export const PUSH_HANDLERS: HandlerTable = pushHandlers();
