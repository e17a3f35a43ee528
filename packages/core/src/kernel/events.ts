import type { DomainEvent } from './decider.ts';

/** An event as the store keeps it. `position` is the global order; `version` counts within its stream from 1. */
export interface StoredEvent<Type extends string = string, Data = unknown> extends DomainEvent<Type, Data> {
  id: string;
  stream: string;
  version: number;
  /** Unix milliseconds, from the clock port. */
  time: number;
  position: number;
  /**
   * The schema version of this event's type its data was written in (1 for events written before a type
   * had versions). Readers that fold events see them through `Upcasters`, which bring each to its type's
   * current version.
   */
  schemaVersion: number;
}

/** An event ready to append: the envelope's id and time are fixed before the write. */
export interface NewEvent<Type extends string = string, Data = unknown> extends DomainEvent<Type, Data> {
  id: string;
  time: number;
  /**
   * The schema version of `data`. Absent: the type's current version, which `evolvingStore` writes in
   * (a store given none keeps 1). Set it to keep an older event's version (an import, a fixture).
   */
  schemaVersion?: number;
}

/** `-1` means "whatever the stream holds" (no concurrency check); `0` means "the stream must be empty". */
export type ExpectedVersion = number;
export const ANY_VERSION = -1;

export interface StreamAppend {
  stream: string;
  expectedVersion: ExpectedVersion;
  events: NewEvent[];
  /**
   * The id of the event the writer expects at `expectedVersion` (its last), when it decided on a state it
   * had not yet seen durable: another writer's event at the same version then fails the append as a
   * conflict, which a version number alone cannot tell apart. Stores that check it say so
   * (`StoreCapabilities.checksLastEventId`).
   */
  expectedLastId?: string;
}

export interface AppendResult {
  /** Each stream's version after the write, in request order. */
  versions: number[];
  /** The global position of the last event written (or the head if nothing was written). */
  lastPosition: number;
}
