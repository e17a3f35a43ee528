// The public face of @sdp/core: what an embedder calls, named on purpose (docs/embedding.md says why each
// group is here). Beside it: @sdp/core/kernel (event sourcing with nothing of the platform: the store
// port, the memory store, the clock and ids ports, deciders' folding, the log processor), and two for the
// few who need them: @sdp/core/deciders (the write side, for tests of it) and @sdp/core/internal (what
// the other @sdp packages share, which may change in any release). What none lists is internal;
// packaging/api/core*.api.md show every change in review.

// The engine, its options and how it fails.
export { PLATFORM_HANDLERS, createEngine } from './platform.ts';
export { Engine, STORE_RETRY_AFTER_S, isStoreUnavailable, type AccountView, type AttemptCounts, type EngineOptions } from './pipeline/engine.ts';
export { BadRequest, Conflict, DomainError, NotFound } from './calls/errors.ts';
export { CreditsExhausted, forgettableCharge, type RateFigures } from './accounting/credit-window.ts';
export { InteractionsNotKept, RecordingIndex, type RecordingIndexOptions } from './recording-index/recording-index.ts';
// A call, a handler of one (your own, in place of the platform's) and what it is handed.
export { type ApiCall, type CallAnswer, type CallContext, type EngineServices, type EngineSettings, type Handler, type HandlerAnswer, type HandlerTable, type IdentityAccess } from './handling/handler.ts';
export { Params } from './calls/params.ts';
export { paramsOf } from './handling/params-of.ts';
// What a handler of your own bounds what it keeps with (docs/embedding.md#bounding-what-your-handlers-keep).
export { HoldingLimitReached, checkHolding } from './accounting/holding-limits.ts';
export { type HoldingLimit } from './accounting/package.ts';
export { MAX_STORED_JSON_CHARS, checkStoredJson } from './calls/input-limits.ts';
export { compileAndRegister, registerFilter, type DefinitionBudgetOwner } from './filters/filter-store.ts';
// The catalogue (the only list of endpoints) and the versions.
export { ALL_ENDPOINTS, ENDPOINTS, endpointById, isEndpointId, type AllowanceKind, type Endpoint, type EndpointId, type Group, type Method, type PathForm } from './catalogue/endpoints.ts';
export { pickMethod, resolvePath, type RouteMatch } from './catalogue/routes.ts';
export { CURRENT_VERSION, VERSIONS, atLeast, findVersion, looksLikeVersion, parseVersionPrefix, type ApiVersion, type VersionId } from './catalogue/versions.ts';
// The contract as data (docs/openapi.md): each endpoint's parameters and answers, by version.
export { CONTRACT, CONTRACT_VERSIONS, ErrorAnswer, answerSchemaOf, termsOf, type AnswerOf, type ParamsOf, type Terms } from './contract/contract.ts';
export { readParams } from './contract/read.ts';
// An account's package and the calendar of its recording capacity.
export { DEFAULT_PACKAGE, completePackage, readPackageFields, type AccountPackage } from './accounting/package.ts';
export { checkNewAccountFields } from './accounting/account.ts';
export { limitingDayOf, type LimitingDay, type LimitingDayMode } from './days/limiting-day.ts';
export { dailyAccountLimit } from './recording-index/capacity.ts';
// Reading the log: the platform's event schema, its events typed, the account of a stream.
export { PLATFORM_AGGREGATES, PLATFORM_EVENT_TYPES, platformUpcasters, type PlatformEvent } from './platform-events.ts';
export { accountOfStream, asPlatformEvent, type PlatformStoredEvent, type ResourceKind } from './platform-log.ts';
// Read models: what the console and the simulator show, read and never decided on.
export { AccountDirectory, RECENT_CHARGES_KEPT, type RecentCharge } from './read-models/account-directory.ts';
export { FINISHES_SHOWN, accountFigures, taskQueues, type AccountFigures, type CapacityToday, type EngineReads, type TaskQueueFigures } from './read-models/account-figures.ts';
export { RESOURCE_KINDS, TRANSITIONS_KEPT, resourceHistory, type ResourceHistory, type ResourceTransition } from './read-models/resource-history.ts';
// The filter language's compiler, to check or match a definition without a call.
export { compileFilter, type CompiledFilter } from './filters/compiled-filter.ts';
export { type Interaction } from './filters/target-reader.ts';
// Push delivery by connectors: the connector interface an embedder implements, the outbound HTTP port,
// the http connector and the delivery runner.
export { type DeliveryEvent } from './push/delivery.ts';
export { PushConnectors, type DeliveryOutcome, type OutboundAnswer, type OutboundHttp, type OutboundRequest, type PushBatch, type PushConnector } from './push/connector.ts';
export { LOOPBACK_HOSTS, httpConnector, ownEndpointProblem, type HttpConnectorOptions, type OwnEndpoints } from './push/http-connector.ts';
export { DEFAULT_BATCH_MAX_SIZE, DEFAULT_DELIVERY_FREQUENCY_S, PushDelivery, type PushDeliveryOptions } from './push/push-delivery.ts';
// The stand-in's toolbox: semantic faults (an allowance spent, a task queue full, the day's capacity reached).
export { SEMANTIC_FAULTS, applySemanticFault, type SemanticFault } from './faults/semantic-faults.ts';
