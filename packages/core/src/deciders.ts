// @sdp/core/deciders: the write side of the platform, one aggregate at a time: each decider, the stream
// it owns, its commands, events and state, and the limits it decides. For tests of the deciders
// (`deciderSpec` of @sdp/testing) and tools that write a stream by hand; what an account or a resource
// looks like is the read models' (@sdp/core), which need none of this.
export { accountDecider, accountStream, type Account, type AccountCommand, type AccountEvent } from './accounting/account.ts';
export { hashApiKey } from './accounting/api-key.ts';
export { creditsDecider, creditsStream, openWindow, type AllowanceLine, type ChargeCredits, type CreditWindow, type Credits, type CreditsEvent } from './accounting/credit-window.ts';
export { capacityStream, dailyCapacityDecider, type CapacityEvent, type DailyCapacity } from './recording-index/capacity.ts';
export { historicsDecider, historicsStream, type HistoricsCommand, type HistoricsEvent, type HistoricsQueries, type HistoricsQuery } from './historics/historics-query.ts';
export { idempotencyDecider, idempotencyStream, IDEMPOTENCY_KEY_MAX, IDEMPOTENCY_TTL_MS, type IdempotencyEvent, type IdempotentRecord } from './idempotency/idempotency-keys.ts';
export { type Identities, type Identity, type IdentityCommand, type IdentityEvent } from './identities/identity.ts';
export { type Preview, type PreviewCommand, type PreviewEvent, type Previews } from './previews/preview.ts';
export { pushDecider, type PushCommand, type PushEvent, type PushState, type PushSubscription } from './push/push-subscription.ts';
export { recordingsDecider, type Recording, type RecordingCommand, type RecordingEvent, type Recordings } from './recordings/recording.ts';
export { sourcesDecider, type SourceCommand, type SourceEvent, type SourcesState } from './sources/managed-source.ts';
export { TASK_QUEUE_LIMIT, taskSlotsDecider, tasksStream, type TaskCommand, type TaskEvent, type TaskSlots } from './tasks/task-slot.ts';
export { streamConnectionsDecider, streamConnectionsStream, type StreamCommand, type StreamConnections, type StreamEvent } from './streams/stream-connections.ts';
export { matchedRelayDecider, type RelayCommand, type RelayState } from './streams/matched-relay.ts';
