import { historicsStream } from './historics/historics-query.ts';
import { identitiesStream } from './identities/identity.ts';
import type { StoredEvent } from './kernel/events.ts';
import { previewsStream } from './previews/preview.ts';
import { pushStream } from './push/push-subscription.ts';
import { recordingsStream } from './recordings/recording.ts';
import { sourcesStream } from './sources/managed-source.ts';
import { PLATFORM_AGGREGATES, PLATFORM_EVENT_TYPES, type PlatformEvent } from './platform-events.ts';

/**
 * A stored event of the platform with its data typed by its type: a reader outside the core (a keeper, a
 * report, the console) switches on `type` and reads `data` without a cast, so a renamed field fails to
 * compile in every reader.
 */
export type PlatformStoredEvent = {
  [T in PlatformEvent['type']]: Omit<StoredEvent, 'type' | 'data'> & Extract<PlatformEvent, { type: T }>;
}[PlatformEvent['type']];

const KNOWN: ReadonlySet<string> = new Set(PLATFORM_EVENT_TYPES);

/**
 * The event as the platform's, typed; undefined for a type it does not write (an embedder's own). Read
 * through the engine's store (`engine.store`), events arrive in their type's current schema, which is the
 * shape this type names.
 */
export function asPlatformEvent(event: StoredEvent): PlatformStoredEvent | undefined {
  return KNOWN.has(event.type) ? (event as PlatformStoredEvent) : undefined;
}

/** Streams of one account's limiting day end in the day's key (`capacity:ada:2026-03-02`). */
const DAY_SUFFIX = /:\d{4}-\d{2}-\d{2}$/;
/** The aggregates whose streams are named for a day of an account rather than for the account alone. */
const PER_DAY = new Set(['capacity:', 'filter-budget:']);
/** Streams that belong to no account (a filter's definition is shared by all who compile it). */
const SHARED = new Set(['filter:']);

/**
 * The account whose stream this is, from the platform's own stream names (`PLATFORM_AGGREGATES`);
 * undefined for a shared stream or one the platform does not name.
 */
export function accountOfStream(stream: string): string | undefined {
  for (const { prefix } of PLATFORM_AGGREGATES) {
    if (!stream.startsWith(prefix)) continue;
    if (SHARED.has(prefix)) return undefined;
    const rest = stream.slice(prefix.length);
    if (!PER_DAY.has(prefix)) return rest;
    const day = DAY_SUFFIX.exec(rest);
    return day ? rest.slice(0, day.index) : undefined;
  }
  return undefined;
}

/**
 * The streams holding an account's resources, one per kind, each built by the aggregate that owns it:
 * a reader that lists what an account holds (the console) names no stream by hand.
 */
export const RESOURCE_STREAMS = Object.freeze({
  recordings: recordingsStream,
  historics: historicsStream,
  previews: previewsStream,
  push: pushStream,
  sources: sourcesStream,
  identities: identitiesStream,
} satisfies Record<string, (username: string) => string>);

export type ResourceKind = keyof typeof RESOURCE_STREAMS;
