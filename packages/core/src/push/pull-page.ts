import { BadRequest } from '../calls/errors.ts';
import { utf8Length } from '../calls/utf8.ts';
import { fnv1a } from './fnv.ts';
import type { FeedWindow } from './feed.ts';
import type { PullFormat } from './output-types.ts';
import type { PullPage, PushSubscription } from './push-subscription.ts';

/** What a pull answers when the caller gives no `size` (bytes), as the original clients send. */
export const DEFAULT_PULL_SIZE = 20_971_520;
/** The largest page a pull may ask for: a page is built in memory and sent whole, so its size is bounded (400 above). */
export const MAX_PULL_SIZE = 52_428_800;

/**
 * A cursor names a position in a subscription's feed: 12 hex of position and 20 hex that tie it to the
 * subscription, so a cursor of another subscription (or a typo) is refused rather than misread.
 */
export function encodeCursor(subscriptionId: string, position: number): string {
  return seal(subscriptionId, position) + position.toString(16).padStart(12, '0');
}

export function decodeCursor(subscriptionId: string, cursor: string): number {
  if (!/^[0-9a-f]{32}$/.test(cursor)) throw new BadRequest('cursor must be 32 lowercase hex characters');
  const position = parseInt(cursor.slice(20), 16);
  if (seal(subscriptionId, position) !== cursor.slice(0, 20)) throw new BadRequest(`cursor ${cursor} does not belong to subscription ${subscriptionId}`);
  return position;
}

function seal(id: string, position: number): string {
  const text = `${id}:${position}`;
  return (fnv(text, 0x811c9dc5) + fnv(text, 0x01000193) + fnv(text, 0x9e3779b9)).slice(0, 20);
}

function fnv(text: string, seed: number): string {
  return fnv1a(text, seed).toString(16).padStart(8, '0');
}

/**
 * The page that starts at `from`: a page already served keeps its end (so the same cursor gives the
 * same page); a new page takes interactions in order while they fit in `size` bytes, and always at
 * least one so that a consumer never stalls on a large interaction. `null` when nothing waits.
 */
export function pageFrom(feed: FeedWindow, from: number, size: number, served?: PullPage): { to: number; bytes: number } | null {
  if (served) return { to: served.to, bytes: served.bytes };
  if (from >= feed.length) return null;
  let bytes = 0;
  let to = from;
  while (to < feed.length) {
    const b = utf8Length(JSON.stringify(feed.at(to)));
    if (to > from && bytes + b > size) break;
    bytes += b;
    to++;
  }
  return { to, bytes };
}

/** RFC 2822 in UTC, as `delivered_at` is written on the wire. */
export function rfc2822(ms: number): string {
  return new Date(ms).toUTCString().replace('GMT', '+0000');
}

/** The body of a page in the subscription's format (docs/clients.md#core-calls-and-pull). */
export function renderPage(format: PullFormat, sub: PushSubscription, items: readonly unknown[], deliveredAt: number): unknown {
  switch (format) {
    case 'json_new_line':
      return items.map((i) => JSON.stringify(i)).join('\n');
    case 'json_array':
      return items;
    case 'json_meta':
      return {
        id: sub.id,
        hash: sub.hash,
        hash_type: sub.hash_type,
        count: items.length,
        delivered_at: rfc2822(deliveredAt),
        interactions: items,
      };
  }
}
