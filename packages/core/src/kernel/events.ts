import type { DomainEvent } from './decider.ts';

/** An event as the store keeps it. `position` is the global order; `version` counts within its stream from 1. */
export interface StoredEvent<Type extends string = string, Data = unknown> extends DomainEvent<Type, Data> {
  id: string;
  stream: string;
  version: number;
  /** Unix milliseconds, from the clock port. */
  time: number;
  position: number;
}

/** An event ready to append: the envelope's id and time are fixed before the write. */
export interface NewEvent<Type extends string = string, Data = unknown> extends DomainEvent<Type, Data> {
  id: string;
  time: number;
}

/** `-1` means "whatever the stream holds" (no concurrency check); `0` means "the stream must be empty". */
export type ExpectedVersion = number;
export const ANY_VERSION = -1;

export interface StreamAppend {
  stream: string;
  expectedVersion: ExpectedVersion;
  events: NewEvent[];
}

export interface AppendResult {
  /** Each stream's version after the write, in request order. */
  versions: number[];
  /** The global position of the last event written (or the head if nothing was written). */
  lastPosition: number;
}
