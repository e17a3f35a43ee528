import type { Account } from '../accounting/account.ts';
import type { UnitOfWork } from '../kernel/unit-of-work.ts';
import type { RecordingIndex } from '../recording-index/recording-index.ts';
import type { CompiledFilter } from '../filters/index.ts';
import { serviceOf } from '../recording-index/index.ts';
import { recordedInteractions, type RecordedInteraction } from '../recordings/record-interactions.ts';
import { recordingsDecider, recordingsStream } from '../recordings/recording.ts';

/**
 * The past data a Historics query or preview runs over: what the account's recordings have kept in
 * the period (still within retention), each interaction once, matched by the query's filter and
 * limited to its sources. The platform holds no other archive, so this is what "historic" means here.
 */
export async function archiveInteractions(
  ctx: { uow: UnitOfWork; recordingIndex: RecordingIndex; now: number; account: Account },
  filter: CompiledFilter,
  sources: readonly string[] | undefined,
  fromMs: number,
  toMs: number,
): Promise<RecordedInteraction[]> {
  const recordings = await ctx.uow.load(recordingsDecider, recordingsStream(ctx.account.username));
  const seen = new Set<unknown>();
  const out: RecordedInteraction[] = [];
  for (const id of recordings.order) {
    for (const r of await recordedInteractions(ctx, id, fromMs, toMs)) {
      const key = interactionKey(r);
      if (seen.has(key)) continue;
      seen.add(key);
      const service = serviceOf(r.interaction);
      if (sources && service !== undefined && !sources.includes(service)) continue;
      if (filter.match(r.interaction).matched) out.push(r);
    }
  }
  return out.sort((a, b) => a.at - b.at);
}

/** Recordings keep their own tagged copies, so an interaction is known by its id when it has one. */
function interactionKey(r: RecordedInteraction): unknown {
  const meta = r.interaction['interaction'];
  const id = typeof meta === 'object' && meta !== null ? (meta as Record<string, unknown>)['id'] : undefined;
  return typeof id === 'string' || typeof id === 'number' ? `id:${id}` : r.interaction;
}
