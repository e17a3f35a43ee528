import { accountDecider, type AccountEvent } from './accounting/account.ts';
import { creditsDecider, type CreditsEvent } from './accounting/credit-window.ts';
import { filterRegistryDecider, type FilterEvent } from './filters/filter-registry.ts';
import { definitionBudgetDecider, type DefinitionBudgetEvent } from './filters/definition-budget.ts';
import { firehoseDecider, type FirehoseEvent } from './firehose/firehose.ts';
import { historicsDecider, type HistoricsEvent } from './historics/historics-query.ts';
import { idempotencyDecider, type IdempotencyEvent } from './idempotency/idempotency-keys.ts';
import { identitiesDecider, type IdentityEvent } from './identities/identity.ts';
import type { ReplayTarget } from './kernel/replay.ts';
import { Upcasters } from './kernel/upcasters.ts';
import { previewsDecider, type PreviewEvent } from './previews/preview.ts';
import { pushDecider, type PushEvent } from './push/push-subscription.ts';
import { dailyCapacityDecider, type CapacityEvent } from './recording-index/capacity.ts';
import { recordingsDecider, type RecordingEvent } from './recordings/recording.ts';
import { sourcesDecider, type SourceEvent } from './sources/managed-source.ts';
import { taskSlotsDecider, type TaskEvent } from './tasks/task-slot.ts';
import { streamConnectionsDecider, type StreamEvent } from './streams/stream-connections.ts';
import { matchedRelayDecider } from './streams/matched-relay.ts';

/** Every event the platform writes. */
export type PlatformEvent =
  | AccountEvent
  | CreditsEvent
  | FilterEvent
  | DefinitionBudgetEvent
  | FirehoseEvent
  | HistoricsEvent
  | IdempotencyEvent
  | IdentityEvent
  | PreviewEvent
  | PushEvent
  | CapacityEvent
  | RecordingEvent
  | SourceEvent
  | StreamEvent
  | TaskEvent;

// A record, so that the type-check fails until a new event type is named here (the golden fixtures'
// coverage test reads this list).
const EVENT_TYPES: Record<PlatformEvent['type'], true> = {
  AccountOpened: true, PackageChanged: true, AccountDenied: true, AccountAllowed: true, ApiKeyReplaced: true,
  CreditsCharged: true, FilterCompiled: true, FirehoseSwitchedOn: true, FirehoseSwitchedOff: true,
  FirehoseFed: true, HistoricsPrepared: true, HistoricsStarted: true, HistoricsPaused: true,
  HistoricsResumed: true, HistoricsStopped: true, HistoricsSucceeded: true, HistoricsFailed: true,
  HistoricsRenamed: true, HistoricsDeleted: true, IdempotentCallRecorded: true, IdentityCreated: true,
  IdentityUpdated: true, IdentityDeleted: true, IdentityTokenCreated: true, IdentityTokenUpdated: true,
  IdentityTokenDeleted: true, IdentityLimitCreated: true, IdentityLimitUpdated: true,
  IdentityLimitDeleted: true, PreviewCreated: true, PreviewSucceeded: true, PushSubscriptionCreated: true,
  PushStatusChanged: true, PushSubscriptionUpdated: true, PushSubscriptionDeleted: true,
  PullPageServed: true, PushBatchOpened: true, PushBatchDelivered: true, PushDeliveryFailed: true,
  PushDeliveryAbandoned: true, InteractionsRecorded: true, CapacityReached: true, RecordingStarted: true,
  RecordingRestarted: true, RecordingStopped: true, RecordingUpdated: true, ManagedSourceCreated: true,
  ManagedSourceStarted: true, ManagedSourceStopped: true, ManagedSourceUpdated: true,
  ManagedSourceDeleted: true, SourceAuthAdded: true, SourceAuthRemoved: true, SourceResourcesAdded: true,
  SourceResourcesRemoved: true, IngestionAdmitted: true, TaskQueued: true, TaskCompleted: true,
  TaskQueueFilled: true, FilterDefinitionsSpent: true, StreamConnected: true, StreamSubscribed: true,
  StreamUnsubscribed: true, StreamDisconnected: true, StreamInteractionsMatched: true,
  StreamInteractionsDelivered: true,
};

/** The type of every event the platform writes. */
export const PLATFORM_EVENT_TYPES: readonly PlatformEvent['type'][] = Object.freeze(Object.keys(EVENT_TYPES) as PlatformEvent['type'][]);

/** Every aggregate of the platform and the streams it owns (by name prefix): what a replay rebuilds. */
export const PLATFORM_AGGREGATES: readonly ReplayTarget[] = Object.freeze([
  { decider: accountDecider, prefix: 'account:' },
  { decider: creditsDecider, prefix: 'credits:' },
  { decider: filterRegistryDecider, prefix: 'filter:' },
  { decider: definitionBudgetDecider, prefix: 'filter-budget:' },
  { decider: firehoseDecider, prefix: 'firehose:' },
  { decider: historicsDecider, prefix: 'historics:' },
  { decider: idempotencyDecider, prefix: 'idempotency:' },
  { decider: identitiesDecider, prefix: 'identities:' },
  { decider: previewsDecider, prefix: 'previews:' },
  { decider: pushDecider, prefix: 'push:' },
  { decider: dailyCapacityDecider, prefix: 'capacity:' },
  { decider: recordingsDecider, prefix: 'recordings:' },
  { decider: sourcesDecider, prefix: 'sources:' },
  { decider: streamConnectionsDecider, prefix: 'streams:' },
  { decider: matchedRelayDecider, prefix: 'stream-matches:' },
  { decider: taskSlotsDecider, prefix: 'tasks:' },
]);

/**
 * The platform's event schema: the one place its upcasters are registered. Every type is at version 1
 * so far. Changing what a type's data means, or its shape in a way an old event cannot be read as,
 * adds a step here (`.register('PackageChanged', 1, (d) => ...)`) in the same change as the decider,
 * and a golden fixture of the old shape proves it (docs/stores.md, "Evolving an event").
 *
 * A new registry on each call: an embedder extends its own (`platformUpcasters().register(...)`) and
 * passes it as `createEngine({ upcasters })`.
 */
export function platformUpcasters(): Upcasters {
  return new Upcasters();
}
