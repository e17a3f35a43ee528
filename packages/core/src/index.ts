// The public face of @sdp/core: the platform an embedder runs, named on purpose (docs/embedding.md says
// why each group is here). The event-sourcing kernel under it (the store port, the memory store, the
// clock and ids ports, deciders' folding, projections, upcasters, replay) is @sdp/core/kernel
// (kernel/index.ts). What neither lists is internal and may change; packaging/api/core.api.md and
// core-kernel.api.md show every change in review.
export { accountDecider, accountStream, checkNewAccountFields, type Account, type AccountCommand, type AccountEvent } from './accounting/account.ts';
export { hashApiKey } from './accounting/api-key.ts';
export { CreditsExhausted, creditsDecider, creditsStream, forgettableCharge, openWindow, type AllowanceLine, type ChargeCredits, type CreditWindow, type Credits, type CreditsEvent, type RateFigures } from './accounting/credit-window.ts';
export { DEFAULT_PACKAGE, completePackage, readPackageFields, type AccountPackage, type HoldingLimit } from './accounting/package.ts';
export { HoldingLimitReached, checkHolding } from './accounting/holding-limits.ts';
export { MAX_STORED_JSON_CHARS, checkStoredJson } from './calls/input-limits.ts';
export { type AnalysisRequest, type AnalysisSpec, type FreqDistSpec, type Interval, type TimeSeriesSpec } from './analysis/analysis-request.ts';
export { type Bucket } from './analysis/distribution.ts';
export { type AnalysisEntry, type AnalysisOutput, type AnalysisResult, type Redaction } from './analysis/run-analysis.ts';
export { ALL_ENDPOINTS, ENDPOINTS, endpointById, isEndpointId, type AllowanceKind, type Endpoint, type EndpointId, type Group, type Method, type PathForm } from './catalogue/endpoints.ts';
export { pickMethod, resolvePath, type RouteMatch } from './catalogue/routes.ts';
export { CURRENT_VERSION, VERSIONS, atLeast, findVersion, looksLikeVersion, parseVersionPrefix, type ApiVersion, type VersionId } from './catalogue/versions.ts';
export { limitingDayOf, type LimitingDay, type LimitingDayMode } from './days/limiting-day.ts';
export { Engine, STORE_RETRY_AFTER_S, isStoreUnavailable, type AccountView, type AttemptCounts, type EngineOptions } from './pipeline/engine.ts';
export { BadRequest, Conflict, DomainError, NotFound } from './calls/errors.ts';
export { type ApiCall, type CallAnswer, type CallContext, type EngineServices, type EngineSettings, type Handler, type HandlerAnswer, type HandlerTable, type IdentityAccess } from './handling/handler.ts';
export { Params } from './calls/params.ts';
export { PLATFORM_AGGREGATES, PLATFORM_EVENT_TYPES, platformUpcasters, type PlatformEvent } from './platform-events.ts';
export { RESOURCE_STREAMS, accountOfStream, asPlatformEvent, type PlatformStoredEvent, type ResourceKind } from './platform-log.ts';
export { type Condition, type Definition, type Expr, type Operator } from './filters/ast.ts';
export { compileFilter, type CompiledFilter } from './filters/compiled-filter.ts';
export { type DpuBreakdown } from './filters/cost.ts';
export { applyTags, type MatchResult } from './filters/evaluator.ts';
export { type FilterCommand, type FilterEvent, type RegisteredFilter } from './filters/filter-registry.ts';
export { compileAndRegister, loadFilter, registerFilter, type DefinitionBudgetOwner } from './filters/filter-store.ts';
export { compileQueryFilter } from './filters/handlers.ts';
export { FILTER_LIMITS } from './filters/limits.ts';
export { type FilterKind } from './filters/parser.ts';
export { readTarget, type Interaction } from './filters/target-reader.ts';
export { catchUpFirehose, feed, firehose, FIREHOSE_SWITCH_TYPES, switchFirehoseOff, switchFirehoseOn, type FirehoseCommand, type FirehoseEvent, type FirehoseOptions, type FirehoseProgress, type FirehoseState, type FirehoseStep } from './firehose/firehose.ts';
export { type FirehoseService } from './firehose/synthetic-interactions.ts';
export { type AvailabilityWindow, type SourceAvailability } from './historics/availability.ts';
export { historicsDecider, historicsStream, type HistoricsCommand, type HistoricsEvent, type HistoricsQueries, type HistoricsQuery } from './historics/historics-query.ts';
export { type HistoricsPhase, type HistoricsStatus, type Timeline } from './historics/progress.ts';
export { identityAccess } from './identities/identity-access.ts';
export { type Identities, type Identity, type IdentityCommand, type IdentityEvent, type IdentityLimit, type IdentityStatus, type IdentityToken, type LimitFigures } from './identities/identity.ts';
export { PLATFORM_HANDLERS, createEngine } from './platform.ts';
export { type PreviewAnalysis, type PreviewAnalysisType, type PreviewData, type PreviewInterval, type PreviewOutput } from './previews/preview-analyses.ts';
export { type Preview, type PreviewCommand, type PreviewEvent, type PreviewStatus, type Previews } from './previews/preview.ts';
export { type FeedWindow, type PushFeed } from './push/feed.ts';
export { validateOutput, type PullFormat } from './push/output-types.ts';
export { FINISHING_MS, PUSH_EVENT_TYPES, pushDecider, type HashType, type PullPage, type PushCommand, type PushEvent, type PushLogEntry, type PushState, type PushStatus, type PushSubscription } from './push/push-subscription.ts';
export { capacityStream, dailyAccountLimit, dailyCapacityDecider, type CapacityEvent, type DailyCapacity, type OfferedInteraction, type RecordInteractionsCommand, type RecordingMatch } from './recording-index/capacity.ts';
export { recordInteractions, recordedInteractions, type RecordResult, type RecordedInteraction, type RecordingContext } from './recordings/record-interactions.ts';
export { RECORDING_INDEX, RecordedSet, RecordingIndex, recordingIndexOf } from './recording-index/recording-index.ts';
export { type RecordingView } from './recordings/recording-view.ts';
export { recordingsDecider, type Recording, type RecordingCommand, type RecordingEvent, type RecordingStatus, type Recordings } from './recordings/recording.ts';
export { type IngestedBatch } from './sources/ingestion-body.ts';
export { type IngestionLimits, type IngestionWindow } from './sources/ingestion-limit.ts';
export { sourcesDecider, type ManagedSource, type SourceAuth, type SourceChanges, type SourceCommand, type SourceEvent, type SourceLogEntry, type SourceResource, type SourceStatus, type SourcesState } from './sources/managed-source.ts';
export { type SourceAuthInput, type SourceResourceInput, type SourceType } from './sources/source-types.ts';
export { STRATEGY_QUEUE_LIMIT, STRATEGY_TASK_MS } from './tasks/task-slot.ts';
export { type StrategyGroup, type StrategyItem, type StrategyResult } from './tasks/strategy.ts';
export { LINKEDIN_REFERENCE_SETS, referenceSetsOf, type ReferenceSet, type ReferenceValue } from './reference/reference-sets.ts';
export { TASK_QUEUE_LIMIT, queuedAt, taskSlotsDecider, tasksStream, type AnalysisTask, type TaskCommand, type TaskEvent, type TaskOutcome, type TaskSlot, type TaskSlots, type TaskStatus, type TaskType } from './tasks/task-slot.ts';
export { type AccountPeriod, type CorePeriod } from './usage/usage.ts';
export { MAX_HASHES_PER_CONNECTION, MAX_LICENCE_TYPES, STREAM_USAGE_KEPT_MS, OPENS_PER_PLACE_PER_HOUR, StreamConnectionsExceeded, StreamOpensExceeded, TooManyHashes, opensPerHour, licenceTypeOf, streamConnectionsDecider, streamConnectionsStream, streamUsage, type DeliveredCounts, type Licences, type StreamCommand, type StreamConnections, type StreamEvent, type StreamTransport } from './streams/stream-connections.ts';
export {
  MATCHED_TYPE,
  MATCHES_KEPT_MS,
  RELAY_STREAM_PREFIX,
  matchedRelayDecider,
  matchedRelayStream,
  relayBytesPerWindow,
  RELAY_WINDOW_MS,
  RELAY_WINDOWS_KEPT,
  type MatchedEvent,
  type RelayCommand,
  type RelayNotice,
  type RelayState,
  type StreamMatch,
} from './streams/matched-relay.ts';
export { matchedStreamHashes } from './streams/match-streams.ts';
export { STREAM_SUBSCRIBE_COST, streamHandlers } from './streams/stream-handlers.ts';
export { StreamCalls, limitOf, type CallDoor, type StreamCredentials } from './streams/stream-calls.ts';
export { DEFAULT_LAPSE_MS, HOST_LOST, LostHosts, SWEEP_ACCOUNTS, type StreamHosting } from './streams/lost-hosts.ts';
// Push delivery by connectors: the connector interface an embedder implements, the outbound HTTP port,
// the http connector and the delivery runner.
export { type DeliveryEvent } from './push/delivery.ts';
export { PushConnectors, type DeliveryOutcome, type OutboundAnswer, type OutboundHttp, type OutboundRequest, type PushBatch, type PushConnector } from './push/connector.ts';
export { batchBody } from './push/batch.ts';
export { LOOPBACK_HOSTS, httpConnector, ownEndpointProblem, type HttpConnectorOptions, type OwnEndpoints } from './push/http-connector.ts';
export { DEFAULT_BATCH_MAX_SIZE, DEFAULT_DELIVERY_FREQUENCY_S, PUSH_WAKE_EVENT_TYPES, PushDelivery, pushWakeAccount, type PushDeliveryOptions } from './push/push-delivery.ts';
// The stand-in's toolbox: semantic faults (an allowance spent, a task queue full, the day's capacity
// reached) and idempotency keys recorded with the call they answer.
export { SEMANTIC_FAULTS, applySemanticFault, type SemanticFault } from './faults/semantic-faults.ts';
export { IDEMPOTENCY_KEY_MAX, IDEMPOTENCY_TTL_MS, idempotencyDecider, idempotencyStream, type IdempotencyEvent, type IdempotentRecord } from './idempotency/idempotency-keys.ts';
// The contract as data (docs/openapi.md): each endpoint's parameters and answers as zod schemas, by
// version; the types read from them; the reader handlers use; the wire types to write another with.
export { CONTRACT, CONTRACT_VERSIONS, ErrorAnswer, answerSchemaOf, termsOf, type AnswerOf, type ParamsOf, type Terms } from './contract/contract.ts';
export { issueText, readParams } from './contract/read.ts';
export { LENIENT, epoch, flag, hex, jsonObject, jsonValue, list, text, whole, wireParams, word } from './contract/wire.ts';
export { paramsOf } from './handling/params-of.ts';
export { answerJsonSchemas, errorJsonSchema, exampleOf, isRefusedParam, paramsJsonSchema, resolveRef, type JsonSchema, type NamedSchemas } from './contract/json-schema.ts';
