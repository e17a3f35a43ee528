import { utf8Length } from '../calls/utf8.ts';
import type { PushBatch } from './connector.ts';
import type { FeedWindow } from './feed.ts';
import type { PullFormat } from './output-types.ts';
import { renderPage } from './pull-page.ts';
import type { PushSubscription } from './push-subscription.ts';

/** The body of a batch as sent: the same formats a pull page has (docs/clients.md#core-calls-and-pull). */
export function batchBody(batch: PushBatch): string {
  const page = renderPage(batch.format, batch.subscription as PushSubscription, batch.interactions, batch.openedAt);
  return typeof page === 'string' ? page : JSON.stringify(page);
}

/**
 * The batch that starts at `from`: interactions in order while the whole body stays within `maxSize`
 * bytes, and always at least one, so a single large interaction never blocks the queue. `null` when
 * nothing waits.
 */
export function cutBatch(
  feed: FeedWindow,
  from: number,
  maxSize: number,
  format: PullFormat,
  sub: PushBatch['subscription'],
  openedAt: number,
): { to: number; bytes: number } | null {
  if (from >= feed.length) return null;
  const empty = { subscription: sub, deliveryId: '', format, interactions: [], openedAt };
  // A body's size is its empty form plus each interaction and a separator between two; json_meta's
  // `count` grows by a digit now and then.
  const base = utf8Length(batchBody(empty));
  const sizeOf = (n: number, sum: number) => base + sum + (n - 1) + (format === 'json_meta' ? String(n).length - 1 : 0);
  let sum = 0;
  let to = from;
  while (to < feed.length) {
    const b = utf8Length(JSON.stringify(feed.at(to)));
    if (to > from && sizeOf(to - from + 1, sum + b) > maxSize) break;
    sum += b;
    to++;
  }
  return { to, bytes: sizeOf(to - from, sum) };
}

/** Bytes of interactions queued from `from` on (what `remaining_bytes` reports). */
export function waitingBytes(items: FeedWindow, from: number): number {
  if (items.bytesBetween) return items.bytesBetween(from, items.length);
  let n = 0;
  for (let i = from; i < items.length; i++) n += utf8Length(JSON.stringify(items.at(i)));
  return n;
}
