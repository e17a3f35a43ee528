import type { HostLiveness } from './host-liveness.ts';

/**
 * What a store can do beyond the port's methods, in one record: what it is, who else can write its
 * data, and the guarantees a writer may build on. The store states it; nothing below the server reads it
 * to decide where it runs (the server turns it into a `WritePolicy` once, at start-up), except a replay,
 * which may fold fresh reads without copying them.
 */
export interface StoreCapabilities {
  /** What the store is, for people and logs: `memory`, `sqlite`, `postgres`, or an embedder's own name. */
  readonly kind: string;
  /**
   * Who can write its data: this process alone (`process`: in memory), other processes of this machine
   * (`machine`: a file), or processes of any machine (`network`: a database server others may connect to).
   */
  readonly reach: 'process' | 'machine' | 'network';
  /**
   * `append` checks `StreamAppend.expectedLastId`: a write decided on a pending state of this process
   * fails if another writer's event took that version, which a version number alone cannot tell.
   */
  readonly checksLastEventId: boolean;
  /** Every read returns new objects (parsed from disk), which the reader may keep and change. */
  readonly freshReads: boolean;
  /**
   * Liveness records of the processes sharing the data (beside the log, not in it), so one can end what a
   * dead one held: present where several processes may share it (SQLite files, PostgreSQL).
   */
  readonly hostRecords?: HostLiveness;
}
