import type { CallContext } from '../handling/handler.ts';
import type { Interaction } from '../filters/index.ts';
import { recordInteractions } from '../recordings/record-interactions.ts';
import type { ManagedSource } from './managed-source.ts';

/**
 * One slice of an ingestion batch: interactions whose text adds up to this many characters are matched
 * against the running recordings, then the event loop gets a turn. Matching is linear in the text, so a
 * slice holds the loop for a bounded time (a few ms) however large the batch.
 */
export const INGESTION_SLICE_CHARS = 64 * 1024;
const INGESTION_SLICE_ITEMS = 256;

/**
 * Hands ingested interactions to the recording index, where the account's running recordings keep those
 * their filters match (within the day's capacity). Staged in the call's unit of work, so a refused
 * request keeps nothing.
 */
export async function recordIngested(ctx: CallContext, _source: ManagedSource, interactions: Record<string, unknown>[], sizes?: number[]): Promise<number> {
  let recorded = 0;
  for (const slice of slices(interactions, sizes)) {
    recorded += (await recordInteractions(ctx, slice as Interaction[])).recorded;
    if (slice.length < interactions.length && ctx.yieldTurn) await ctx.yieldTurn();
  }
  return recorded;
}

/** Consecutive runs of at most INGESTION_SLICE_ITEMS interactions and about INGESTION_SLICE_CHARS of text. */
export function* slices<T>(items: T[], sizes?: number[]): Generator<T[]> {
  let start = 0;
  let chars = 0;
  for (let k = 0; k < items.length; k++) {
    chars += sizes?.[k] ?? 0;
    if (k + 1 - start >= INGESTION_SLICE_ITEMS || chars >= INGESTION_SLICE_CHARS) {
      yield items.slice(start, k + 1);
      start = k + 1;
      chars = 0;
    }
  }
  if (start < items.length || items.length === 0) yield start === 0 ? items : items.slice(start);
}
