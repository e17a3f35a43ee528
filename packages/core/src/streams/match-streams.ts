import type { UnitOfWork } from '../kernel/unit-of-work.ts';
import type { CompiledFilter, Interaction } from '../filters/index.ts';
import { loadFilter, REGEX_WORK_PER_TURN, type WorkMeter } from '../filters/index.ts';
import { liveHashes, streamConnectionsDecider, streamConnectionsStream } from './stream-connections.ts';
import { matchedRelayDecider, matchedRelayStream, type StreamMatch } from './matched-relay.ts';

/** What matching for streams needs of a call or an operator's unit of work. */
export interface StreamMatchContext {
  uow: UnitOfWork;
  account: { username: string };
  now: number;
  yieldTurn?: (() => Promise<void>) | undefined;
}

/**
 * Offers interactions entering the account's platform to the hashes its stream connections are
 * subscribed to: each hash's compiled filter decides (the same linear-time matcher recordings use), and
 * what matched is staged as one `StreamInteractionsMatched` on the account's relay in `ctx.uow`, so it
 * reaches subscribers only when the call that brought it commits. The aggregate of the account's
 * subscriptions is read (and so guarded) in the same write: its version is the match's `seq`, which
 * orders it against subscriptions. Returns how many
 * interactions matched some hash. An account with nothing subscribed costs one cached load.
 */
export async function offerToStreams(ctx: StreamMatchContext, interactions: readonly Interaction[]): Promise<number> {
  if (interactions.length === 0) return 0;
  const stream = streamConnectionsStream(ctx.account.username);
  const loaded = ctx.uow.load(streamConnectionsDecider, stream);
  const state = loaded instanceof Promise ? await loaded : loaded;
  const hashes = liveHashes(state);
  if (hashes.length === 0) return 0;
  const filters: { hash: string; filter: CompiledFilter }[] = [];
  for (const hash of hashes) {
    const filter = await loadFilter(ctx.uow, hash);
    if (filter) filters.push({ hash, filter });
  }
  const memo = filters.length > 1 ? new Map<string, unknown>() : undefined;
  const meter: WorkMeter = { regexWork: 0 };
  const items: StreamMatch[] = [];
  try {
    for (const interaction of interactions) {
      if (typeof interaction !== 'object' || interaction === null || Array.isArray(interaction)) continue;
      memo?.clear();
      let matched: string[] | undefined;
      for (const { hash, filter } of filters) {
        const result = filter.match(interaction, memo, meter);
        // Heavy patterns are paid by work, not count: other accounts' calls get a turn (as for recordings).
        if (meter.regexWork >= REGEX_WORK_PER_TURN && ctx.yieldTurn) {
          meter.regexWork = 0;
          await ctx.yieldTurn();
        }
        if (result.matched) (matched ??= []).push(hash);
      }
      if (matched) items.push({ hashes: matched, interaction });
    }
  } finally {
    for (const { filter } of filters) filter.releaseCaches();
  }
  if (items.length > 0) await ctx.uow.execute(matchedRelayDecider, matchedRelayStream(ctx.account.username), { type: 'RelayStreamMatches', at: ctx.now, seq: state.seq, items });
  return items.length;
}
