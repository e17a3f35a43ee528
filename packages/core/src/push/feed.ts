import type { CallContext } from '../engine/handler.ts';
import { recordedInteractions } from '../recording-index/record-interactions.ts';
import { RETENTION_MS } from '../recording-index/recording-index.ts';
import { recordingsDecider, recordingsStream } from '../recordings/recording.ts';
import type { PushSubscription } from './push-subscription.ts';

/**
 * What a subscription's source produced from `from` to `until` (Unix ms, both inclusive), in the order
 * it is delivered. The order must only ever grow at its end, so that a feed position (a cursor) keeps
 * naming the same interaction.
 */
export type PushFeed = (ctx: CallContext, sub: PushSubscription, from: number, until: number) => Promise<unknown[]>;

/**
 * The platform's feed: for a filter hash, what the account's recordings of that hash recorded; for a
 * historics id, the historics query's results.
 */
export const subscriptionFeed: PushFeed = async (ctx, sub, from, until) => {
  if (until < from) return [];
  return sub.hash_type === 'stream' ? recordedWithHash(ctx, sub.hash, from, until) : historicsResults(ctx, sub.hash, from, until);
};

/**
 * What the account's recordings of `hash` kept with an index time in [from, until], recording by
 * recording in the order they were last started, each in recorded order. Rows are read without the
 * analysis retention cut: positions count from the subscription's start, and dropping the oldest rows
 * would shift every cursor handed out since.
 */
async function recordedWithHash(ctx: CallContext, hash: string, from: number, until: number): Promise<unknown[]> {
  const state = await ctx.uow.load(recordingsDecider, recordingsStream(ctx.account.username));
  const recordings = state.order
    .map((id) => state.byId[id]!)
    .filter((r) => r.hash === hash)
    .sort((a, b) => a.start - b.start);
  const reader = { uow: ctx.uow, now: Math.min(ctx.now, from + RETENTION_MS) };
  const out: unknown[] = [];
  for (const r of recordings) {
    for (const row of await recordedInteractions(reader, r.id, from, until + 1)) out.push(row.interaction);
  }
  return out;
}

/** Historics results come from the historics module once it lands; until then a query yields nothing. */
async function historicsResults(_ctx: CallContext, _historicsId: string, _from: number, _until: number): Promise<unknown[]> {
  return [];
}
