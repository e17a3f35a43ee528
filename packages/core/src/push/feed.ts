import { BadRequest, NotFound } from '../calls/errors.ts';
import type { CallContext } from '../handling/handler.ts';
import { loadFilter } from '../filters/filter-store.ts';
import { archiveInteractions } from '../historics/archive.ts';
import { namedFilter } from '../filters/index.ts';
import { historicsQuery } from '../historics/queries.ts';
import { timelineProgress, timelineStatus } from '../historics/progress.ts';
import { RETENTION_MS, recordingIndexOf, type RecordedSet, type RowSelection } from '../recording-index/recording-index.ts';
import { recordingsDecider, recordingsStream } from '../recordings/recording.ts';
import type { PushSubscription } from './push-subscription.ts';

/**
 * A feed read by position: a page, a batch or `remaining_bytes` reads what it returns rather than
 * everything the subscription was ever fed. An array is one; `bytesBetween`, where a feed has it,
 * measures a run without serialising it (pull and push count an interaction as its JSON in UTF-8).
 */
export interface FeedWindow {
  readonly length: number;
  at(i: number): unknown;
  slice(from: number, to: number): unknown[];
  bytesBetween?(from: number, to: number): number;
}

/**
 * What a subscription's source produced from `from` to `until` (Unix ms, both inclusive; a historics
 * query's own period governs its results instead), in the order it is delivered. The order must only
 * ever grow at its end, so that a feed position (a cursor) keeps naming the same interaction.
 */
export type PushFeed = (ctx: CallContext, sub: PushSubscription, from: number, until: number) => Promise<FeedWindow>;

/**
 * The platform's feed: for a filter hash, what the account's recordings of that hash recorded; for a
 * historics id, the historics query's results.
 */
export const subscriptionFeed: PushFeed = async (ctx, sub, from, until) => {
  if (until < from) return [] as unknown[];
  return sub.hash_type === 'stream' ? recordedWithHash(ctx, sub.hash, from, until) : historicsResults(ctx, sub.hash);
};

/**
 * What the account's recordings of `hash` kept with an index time in [from, until], recording by
 * recording in the order they were last started, each in recorded order. Rows are read without the
 * analysis retention cut: positions count from the subscription's start, and dropping the oldest rows
 * would shift every cursor handed out since.
 */
async function recordedWithHash(ctx: CallContext, hash: string, from: number, until: number): Promise<FeedWindow> {
  const state = await ctx.uow.load(recordingsDecider, recordingsStream(ctx.account.username));
  const recordings = state.order
    .map((id) => state.byId[id]!)
    .filter((r) => r.hash === hash)
    .sort((a, b) => a.start - b.start);
  // Retention is applied as of the subscription's start plus the retention period at most, so that
  // the rows a cursor counts from are never dropped under it.
  const index = await recordingIndexOf(ctx).caughtUp(Math.min(ctx.now, from + RETENTION_MS));
  const parts: RecordedPart[] = [];
  for (const r of recordings) {
    const set = index.recording(r.id);
    if (set) parts.push({ set, rows: set.select(from, until + 1) });
  }
  return new RecordedFeed(parts);
}

interface RecordedPart {
  set: RecordedSet;
  rows: RowSelection;
}

/** Recordings' selections one after another: a position is found among a few recordings, not rows. */
class RecordedFeed implements FeedWindow {
  readonly length: number;
  /** Feed position of each part's first row. */
  private readonly starts: number[] = [];

  constructor(private readonly parts: readonly RecordedPart[]) {
    let n = 0;
    for (const p of parts) {
      this.starts.push(n);
      n += p.rows.length;
    }
    this.length = n;
  }

  private partAt(i: number): number {
    let p = this.parts.length - 1;
    while (p > 0 && this.starts[p]! > i) p--;
    return p;
  }

  at(i: number): unknown {
    if (i < 0 || i >= this.length) return undefined;
    const p = this.partAt(i);
    const part = this.parts[p]!;
    return part.set.docs[part.rows.row(i - this.starts[p]!)];
  }

  slice(from: number, to: number): unknown[] {
    const out: unknown[] = [];
    for (let i = Math.max(0, from); i < Math.min(to, this.length); i++) out.push(this.at(i));
    return out;
  }

  bytesBetween(from: number, to: number): number {
    let n = 0;
    for (let p = 0; p < this.parts.length; p++) {
      const start = this.starts[p]!;
      const rows = this.parts[p]!.rows;
      const a = Math.max(from, start) - start;
      const b = Math.min(to, start + rows.length) - start;
      if (b > a) n += rows.bytesBetween(a, b);
    }
    return n;
  }
}

/**
 * A historics query's results: what the archive holds for its filter, sources and period, released as
 * the query progresses (all of them once it has succeeded; nothing before it runs). The retention cut is
 * taken at the period's start, so results already released do not move as the clock runs on.
 */
async function historicsResults(ctx: CallContext, historicsId: string): Promise<unknown[]> {
  const q = await historicsQuery(ctx.uow, ctx.account.username, historicsId);
  if (!q) return [];
  const status = timelineStatus(q, ctx.now);
  if (status === 'init' || status === 'queued') return [];
  const filter = await namedFilter(ctx.uow, q.hash);
  const from = q.start * 1000;
  const reader = { uow: ctx.uow, recordingIndex: recordingIndexOf(ctx), account: ctx.account, now: Math.min(ctx.now, from + RETENTION_MS) };
  const results = await archiveInteractions(reader, filter, q.sources, from, q.end * 1000);
  const released = status === 'succeeded' ? results.length : Math.floor((results.length * timelineProgress(q, ctx.now)) / 100);
  return results.slice(0, released).map((r) => r.interaction);
}

/** A subscription must name something the account has: a compiled filter, or one of its historics queries. */
export async function checkFeedSource(ctx: CallContext, hashType: 'stream' | 'historic', id: string): Promise<void> {
  if (hashType === 'stream') {
    if (!(await loadFilter(ctx.uow, id))) throw new BadRequest('hash must be a valid hash: no filter was compiled with it');
    return;
  }
  const q = await historicsQuery(ctx.uow, ctx.account.username, id);
  if (!q) throw new NotFound(`No historic found with the ID ${id}`);
}
