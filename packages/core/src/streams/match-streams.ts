import type { UnitOfWork } from '../kernel/unit-of-work.ts';
import type { AccountPackage } from '../accounting/package.ts';
import type { CompiledFilter, Interaction, MatchResult } from '../filters/index.ts';
import { loadFilterInTurn, matchInTurns, type WorkMeter } from '../filters/index.ts';
import { liveHashes, streamConnectionsDecider, streamConnectionsStream } from './stream-connections.ts';
import { matchedRelayDecider, matchedRelayStream, relayBytesPerWindow, type StreamMatch } from './matched-relay.ts';

/** What matching for streams needs of a call or an operator's unit of work. */
export interface StreamMatchContext {
  uow: UnitOfWork;
  account: { username: string; package: Pick<AccountPackage, 'credits_per_hour' | 'concurrent_recordings'> };
  now: number;
  yieldTurn?: (() => Promise<void>) | undefined;
}

/** Stream hashes matched per ingested interaction for each of the package's `concurrent_recordings`. */
export const STREAM_HASHES_PER_RECORDING = 10;

/**
 * Distinct live hashes of an account's stream subscriptions its ingested interactions are matched
 * against: each costs a filter's work on every interaction, as a running recording does, so the package
 * that bounds the filters recordings run (`concurrent_recordings`, 10 by default) bounds these too, ten
 * times over (100 by default) since a stream keeps nothing. With the recordings, an interaction is
 * matched against at most `concurrent_recordings × 11` filters.
 */
export const matchedStreamHashes = (pkg: Pick<AccountPackage, 'concurrent_recordings'>): number => pkg.concurrent_recordings * STREAM_HASHES_PER_RECORDING;

/**
 * The account's stream hashes, ready to judge the interactions of one write: what `offerToStreams` does
 * in one go, taken apart so that recording can judge each interaction for its recordings and for the
 * hashes in one pass, with one memo (its text folded and tokenized once for both).
 */
export interface StreamMatching {
  /**
   * Judges one interaction against every hash (the memo is the caller's for this interaction) but those
   * whose verdict `known` answers by index (the caller worked it out already).
   */
  offer(interaction: Interaction, memo: Map<string, unknown> | undefined, meter: WorkMeter, known?: (k: number) => boolean | undefined): void | Promise<void>;
  /** Stages what matched as one `StreamInteractionsMatched` (nothing when nothing matched); answers how many matched. */
  stage(): Promise<number>;
  /** Drops the filters' DFA caches, as a batch done does. */
  release(): void;
  /** How many filters `offer` runs (a memo pays off from two). */
  readonly filters: number;
  /** The filters `offer` runs, for a caller that screens interactions before offering them. */
  readonly compiled: readonly CompiledFilter[];
}

/**
 * Loads the account's live hashes and their filters for a write of interactions; `undefined` when
 * there is nothing to offer (no interactions, or nothing subscribed: one cached load).
 */
export async function streamMatching(ctx: StreamMatchContext, interactions: { readonly length: number }): Promise<StreamMatching | undefined> {
  if (interactions.length === 0) return undefined;
  const stream = streamConnectionsStream(ctx.account.username);
  const loaded = ctx.uow.load(streamConnectionsDecider, stream);
  const state = loaded instanceof Promise ? await loaded : loaded;
  const live = liveHashes(state);
  if (live.length === 0) return undefined;
  const limit = matchedStreamHashes(ctx.account.package);
  // Past the figure, the same hashes are matched at every write whatever order the state keeps them in.
  const ordered = live.length > limit ? [...live].sort() : live;
  const hashes = live.length > limit ? ordered.slice(0, limit) : live;
  const unmatched = live.length > limit ? ordered.slice(limit) : undefined;
  const names: string[] = [];
  const filters: CompiledFilter[] = [];
  for (const hash of hashes) {
    // A filter compiled afresh ends the turn (`loadFilterInTurn`).
    const filter = await loadFilterInTurn(ctx.uow, hash, ctx.yieldTurn);
    if (filter) {
      names.push(hash);
      filters.push(filter);
    }
  }
  const items: StreamMatch[] = [];
  // Kept across `offer`s: the hashes an interaction matched, from the filter after the pause.
  const sweep = async (
    interaction: Interaction,
    memo: Map<string, unknown> | undefined,
    meter: WorkMeter,
    known: ((k: number) => boolean | undefined) | undefined,
    from: number,
    matched: string[] | undefined,
    paused: Promise<MatchResult>,
  ) => {
    if ((await paused).matched) (matched ??= []).push(names[from]!);
    for (let k = from + 1; k < filters.length; k++) {
      const verdict = known?.(k);
      if (verdict !== undefined) {
        if (verdict) (matched ??= []).push(names[k]!);
        continue;
      }
      const matching = matchInTurns(filters[k]!, interaction, memo, meter, ctx.yieldTurn);
      const result = matching instanceof Promise ? await matching : matching;
      if (result.matched) (matched ??= []).push(names[k]!);
    }
    if (matched) items.push({ hashes: matched, interaction });
  };
  return {
    filters: filters.length,
    compiled: filters,
    offer(interaction, memo, meter, known) {
      let matched: string[] | undefined;
      for (let k = 0; k < filters.length; k++) {
        const verdict = known?.(k);
        if (verdict !== undefined) {
          if (verdict) (matched ??= []).push(names[k]!);
          continue;
        }
        // Filters are paid by the work they do, not by count: other accounts' calls get turns (as for recordings).
        const matching = matchInTurns(filters[k]!, interaction, memo, meter, ctx.yieldTurn);
        if (matching instanceof Promise) return sweep(interaction, memo, meter, known, k, matched, matching);
        if (matching.matched) (matched ??= []).push(names[k]!);
      }
      if (matched) items.push({ hashes: matched, interaction });
    },
    async stage() {
      if (items.length > 0 || unmatched) {
        await ctx.uow.execute(matchedRelayDecider, matchedRelayStream(ctx.account.username), {
          type: 'RelayStreamMatches',
          at: ctx.now,
          seq: state.seq,
          items,
          budget: relayBytesPerWindow(ctx.account.package),
          ...(unmatched ? { unmatched } : {}),
        });
      }
      return items.length;
    },
    release() {
      for (const f of filters) f.releaseCaches();
    },
  };
}

/**
 * Offers interactions entering the account's platform to the hashes its stream connections are
 * subscribed to: each hash's compiled filter decides (the same linear-time matcher recordings use), and
 * what matched is staged as one `StreamInteractionsMatched` on the account's relay in `ctx.uow`, so it
 * reaches subscribers only when the call that brought it commits. The aggregate of the account's
 * subscriptions is read (and so guarded) in the same write: its version is the match's `seq`, which
 * orders it against subscriptions. The relay decides what of it fits the account's byte budget
 * (`relayBytesPerWindow`); hashes past `matchedStreamHashes` (the last in hash order) are not matched,
 * and the relay says so. Returns how many interactions matched some hash. An account with nothing
 * subscribed costs one cached load. (Recording judges its interactions for the hashes itself, in the
 * same pass as for its recordings: `streamMatching`.)
 */
export async function offerToStreams(ctx: StreamMatchContext, interactions: readonly Interaction[]): Promise<number> {
  const matching = await streamMatching(ctx, interactions);
  if (!matching) return 0;
  const memo = matching.filters > 1 ? new Map<string, unknown>() : undefined;
  const meter: WorkMeter = { work: 0 };
  try {
    for (const interaction of interactions) {
      if (typeof interaction !== 'object' || interaction === null || Array.isArray(interaction)) continue;
      memo?.clear();
      const offered = matching.offer(interaction, memo, meter);
      if (offered) await offered;
    }
  } finally {
    matching.release();
  }
  return matching.stage();
}
