import type { CallContext } from '../engine/handler.ts';
import type { Interaction } from '../filters/index.ts';
import { recordInteractions } from '../recording-index/record-interactions.ts';
import type { ManagedSource } from './managed-source.ts';

/**
 * Hands ingested interactions to the recording index, where the account's running recordings keep those
 * their filters match (within the day's capacity). Staged in the call's unit of work, so a refused
 * request keeps nothing.
 */
export async function recordIngested(ctx: CallContext, _source: ManagedSource, interactions: Record<string, unknown>[]): Promise<number> {
  const result = await recordInteractions(ctx, interactions as Interaction[]);
  return result.recorded;
}
