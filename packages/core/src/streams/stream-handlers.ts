import { DEFAULT_PACKAGE } from '../accounting/package.ts';
import { NotFound } from '../calls/errors.ts';
import { loadFilter } from '../filters/index.ts';
import type { CallContext, HandlerTable } from '../handling/handler.ts';
import { paramsOf } from '../handling/params-of.ts';
import { connectionHosts, streamConnectionsDecider, streamConnectionsStream, subscriptionOf } from './stream-connections.ts';

/** What a subscription costs from the general allowance: the cost of `/compile` (the catalogue's `stream.subscribe`). */
export const STREAM_SUBSCRIBE_COST = 5;

/** The connection an action belongs to: named by the call (`ApiCall.connection`), admitted when it opened. */
function connectionOf(ctx: CallContext): string {
  const id = ctx.call.connection?.id;
  if (id === undefined) throw new NotFound('No stream connection named');
  return id;
}

/**
 * The stream's actions, judged by the engine as every call is (`CallJudge`: one authentication, one
 * place a charge is decided, one lane per account): a transport builds the call, the engine answers it.
 * Every limit is its aggregate's (`streamConnectionsDecider`): places, opens an hour, hashes a connection.
 */
export const streamHandlers: HandlerTable = {
  /**
   * Opens a connection: an id, written with the transport and, on a store several processes share, the
   * process hosting it (`host`, so a dead host's places can be freed). Free; its answer reports the
   * general allowance as a subscription would be charged from it.
   */
  'stream.open': async (ctx) => {
    const { transport, host } = paramsOf(ctx, 'stream.open');
    const connection = ctx.ids.hex(16);
    const limit = ctx.account.package.stream_connections ?? DEFAULT_PACKAGE.stream_connections;
    await ctx.uow.execute(streamConnectionsDecider, streamConnectionsStream(ctx.account.username), {
      type: 'OpenStreamConnection',
      connection,
      transport,
      at: ctx.now,
      limit,
      ...(host === undefined ? {} : { host }),
    });
    return { body: { connection } };
  },

  /**
   * Subscribes an open connection of the caller's to a hash no filter may be missing for (404). Charged
   * on effect: a repeat, or a refusal, gives the charge back. The answer's `seq` is the subscription's
   * place in the account's stream: it receives the matches decided on that version or a later one.
   */
  'stream.subscribe': async (ctx) => {
    const { connection, hash } = paramsOf(ctx, 'stream.subscribe');
    const h = hash.toLowerCase();
    if (!(await loadFilter(ctx.uow, h))) throw new NotFound(`The hash ${h} doesn't exist`);
    const stream = streamConnectionsStream(ctx.account.username);
    const { state, events } = await ctx.uow.execute(streamConnectionsDecider, stream, { type: 'SubscribeStream', connection, hash: h, at: ctx.now });
    const seq = subscriptionOf(state, connection, h)!.seq;
    return { body: { hash: h, seq, charged: events.length > 0 }, effect: events.length > 0 };
  },

  'stream.unsubscribe': async (ctx) => {
    const { hash } = paramsOf(ctx, 'stream.unsubscribe');
    const { events } = await ctx.uow.execute(streamConnectionsDecider, streamConnectionsStream(ctx.account.username), {
      type: 'UnsubscribeStream',
      connection: connectionOf(ctx),
      hash: hash.toLowerCase(),
      at: ctx.now,
    });
    return { body: { changed: events.length > 0 } };
  },

  /** Interactions delivered (written to connections), as counts by minute and hash: `/usage`'s `licenses`. */
  'stream.deliveries': async (ctx) => {
    const { minutes } = paramsOf(ctx, 'stream.deliveries');
    const { events } = await ctx.uow.execute(streamConnectionsDecider, streamConnectionsStream(ctx.account.username), { type: 'RecordStreamDeliveries', at: ctx.now, minutes });
    return { body: { changed: events.length > 0 } };
  },

  /**
   * Ends the connection and its subscriptions (a repeat is no change). `hosts`: the hosts still holding
   * connections of the account, so a host whose last one this was can release its holding of the account.
   */
  'stream.close': async (ctx) => {
    const { reason } = paramsOf(ctx, 'stream.close');
    const { state, events } = await ctx.uow.execute(streamConnectionsDecider, streamConnectionsStream(ctx.account.username), {
      type: 'CloseStreamConnection',
      connection: connectionOf(ctx),
      at: ctx.now,
      reason,
    });
    return { body: { changed: events.length > 0, hosts: connectionHosts(state) } };
  },

  /**
   * The operator's charge of stream usage injected by hand: the judge has charged the stated cost to the
   * general allowance by the time this runs (the charge is the whole effect); this names what it was.
   */
  'stream.charge': (ctx) => ({ body: { product: 'stream', cost: paramsOf(ctx, 'stream.charge').cost } }),
};
