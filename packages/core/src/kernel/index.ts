// The public face of @sdp/core/kernel: event sourcing with nothing of the platform in it, for a store
// adapter, a read model, or a platform of your own. What is not listed (the engine's aggregate cache and
// unit of work among them) is internal and may change; packaging/api/core-kernel.api.md shows every change
// in review, and docs/embedding.md says who imports what from where.
export { evolveWith, fold, type Decider, type DomainEvent } from './decider.ts';
export { ANY_VERSION, type AppendResult, type ExpectedVersion, type NewEvent, type StoredEvent, type StreamAppend } from './events.ts';
export { StoreUnavailable, type EventStore, type Snapshot } from './event-store.ts';
// What a store can do (its one record), and how an engine writes on it, chosen once from that record.
export { type StoreCapabilities } from './store-capabilities.ts';
export { chooseWritePolicy, defaultWritePolicy, WRITE_POLICIES, type Deployment, type WritePolicy, type WritePolicyName } from './write-policy.ts';
export { MemoryHostLiveness, type HostLiveness, type LapsedHost } from './host-liveness.ts';
// The commit observer: a store's notices that the log grew, and a reader that follows the log by position.
export { CommitSignal, ForeignWrites, type CommitListener, type CommitNotice, type OwnWrite, type Poll, type StopWatching } from './commit-signal.ts';
export { followLog, type FollowLogOptions, type LogFollower } from './log-follower.ts';
export { LOG_PAGE, LogProcessor, type LogProcessorOptions } from './log-processor.ts';
export { VersionConflict } from './version-conflict.ts';
// How often a store that keeps snapshots is asked to write one (a stream crossing a multiple of it).
export { SNAPSHOT_EVERY } from './aggregates.ts';
export { MemoryEventStore, type MemoryStoreOptions } from './memory-store.ts';
export { fixedClock, seededIds, type Clock, type Ids } from './ports.ts';
export { Projection, ProjectionKey, Projections, type ProjectionProgress } from './projection.ts';
// Events that evolve: a schema version per event type, upcasters chained to the current one, and the
// store seen through them (docs/stores.md, "Evolving an event").
export { EventFromNewerSchema, Upcasters, type Upcaster } from './upcasters.ts';
export { EvolvingStore, evolvingStore } from './evolving-store.ts';
export { replay, type RebuiltAggregate, type ReplayOptions, type ReplayReport, type ReplayTarget, type SnapshotMismatch } from './replay.ts';
