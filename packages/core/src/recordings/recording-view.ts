import { atLeast, type VersionId } from '../catalogue/versions.ts';
import { limitingDayOf } from '../days/limiting-day.ts';
import type { CallContext } from '../handling/handler.ts';
import { capacityStream, dailyAccountLimit, dailyCapacityDecider, remainingFor } from '../recording-index/capacity.ts';
import { RETENTION_MS, recordingIndexOf } from '../recording-index/recording-index.ts';
import type { Recording } from './recording.ts';
import { epochSeconds } from '../calls/epoch.ts';

/** A recording as clients read it (docs/clients.md#recording); times in epoch seconds. */
export interface RecordingView {
  id?: string;
  hash: string;
  name: string;
  service: string;
  status: Recording['status'];
  start: number;
  end: number | null;
  created_at: number;
  volume: number;
  reached_capacity: boolean;
  remaining_index_capacity: number;
  remaining_account_capacity: number;
  identity_id?: string | null;
}

/** docs/contract.md#versions: from API 1.3 a recording is named by its `id`, before by its filter `hash`. */
export const namedById = (version: VersionId): boolean => atLeast(version, '1.3');


/**
 * Views of recordings: today's remaining capacities come from the day's capacity aggregate, `volume`
 * (interactions stored) from the index, counting what is still within retention.
 */
export async function recordingViews(ctx: CallContext, recordings: Recording[]): Promise<RecordingView[]> {
  const day = limitingDayOf(ctx.now, ctx.settings.limitingDay);
  const capacity = await ctx.uow.load(dailyCapacityDecider, capacityStream(ctx.account.username, day.key));
  const accountLimit = dailyAccountLimit(ctx.account.package.index_capacity_per_month);
  const index = await recordingIndexOf(ctx).caughtUp(ctx.now);
  const since = ctx.now - RETENTION_MS;
  const withId = namedById(ctx.version);
  return recordings.map((r) => {
    const remaining = remainingFor(capacity, r.id, accountLimit);
    const set = index.recording(r.id);
    const volume = set ? set.hours.count(since, Infinity) : 0;
    return {
      ...(withId ? { id: r.id } : {}),
      hash: r.hash,
      name: r.name,
      service: r.service,
      status: r.status,
      start: epochSeconds(r.start),
      end: r.end === null ? null : epochSeconds(r.end),
      created_at: epochSeconds(r.createdAt),
      volume,
      reached_capacity: remaining.index === 0 || remaining.account === 0,
      remaining_index_capacity: remaining.index,
      remaining_account_capacity: remaining.account,
      ...(withId ? { identity_id: r.identityId } : {}),
    };
  });
}
