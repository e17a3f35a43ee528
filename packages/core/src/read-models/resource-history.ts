import type { EventStore } from '../kernel/event-store.ts';
import type { StoredEvent } from '../kernel/events.ts';
import { RESOURCE_STREAMS, type ResourceKind } from '../platform-log.ts';

/** The resource kinds of an account, each one stream (`RESOURCE_STREAMS`). */
export const RESOURCE_KINDS: readonly ResourceKind[] = Object.freeze(Object.keys(RESOURCE_STREAMS) as ResourceKind[]);

/** One event of a resource, with the state it left the resource in. */
export interface ResourceTransition {
  position: number;
  time: number;
  type: string;
  /** The resource's state after this event. */
  state: string;
}

/** A resource of an account (a recording, a historics query, a push subscription ...) and how it got here. */
export interface ResourceHistory {
  kind: ResourceKind;
  id: string;
  name: string | null;
  state: string;
  /** The newest `TRANSITIONS_KEPT`, oldest first. */
  transitions: ResourceTransition[];
}

/** Transitions kept per resource, newest: a pulled subscription records every page. */
export const TRANSITIONS_KEPT = 50;

// The state word an event leaves its resource in, when its data carries no `status`.
const STATE_OF_VERB: Record<string, string> = {
  Prepared: 'init',
  Started: 'running',
  Restarted: 'running',
  Resumed: 'running',
  Paused: 'paused',
  Stopped: 'stopped',
  Succeeded: 'succeeded',
  Failed: 'failed',
  Deleted: 'deleted',
};

// What a resource is when created, where its created event carries no status.
const CREATED_AS: Partial<Record<ResourceKind, string>> = { sources: 'stopped', previews: 'queued' };

/** A field of an event's data, as whatever it is (undefined where the data has no such field). */
function field(data: unknown, key: string): unknown {
  return typeof data === 'object' && data !== null && Object.hasOwn(data, key) ? (Reflect.get(data, key) as unknown) : undefined;
}

/**
 * The state an event leaves its resource in. Only events about the resource itself (keyed `id`) move
 * it; an identity's tokens and limits (keyed `identityId`) come and go without changing the identity.
 */
function stateAfter(kind: ResourceKind, previous: string, e: StoredEvent): string {
  if (typeof field(e.data, 'id') !== 'string') return previous;
  const status = field(e.data, 'status');
  if (typeof status === 'string') return status;
  const verb = /([A-Z][a-z]+)$/.exec(e.type)?.[1];
  if (verb === 'Created') return CREATED_AS[kind] ?? 'created';
  return (verb && STATE_OF_VERB[verb]) ?? previous;
}

/**
 * A read model: every resource an account's streams hold, kind by kind in `RESOURCE_KINDS` order, each
 * with its name, its state now and the transitions the log records for it. Read from `store` (the
 * engine's, so old events arrive in their current shape); an account with no resources, or none at
 * all, has an empty history.
 */
export async function resourceHistory(store: Pick<EventStore, 'readStream'>, username: string): Promise<ResourceHistory[]> {
  const out: ResourceHistory[] = [];
  for (const kind of RESOURCE_KINDS) {
    const byId = new Map<string, ResourceHistory>();
    for (const e of await store.readStream(RESOURCE_STREAMS[kind](username))) {
      // Every kind's events, read alike: a resource is keyed `id` (an identity's tokens and limits by
      // `identityId`) and named `name` (or `label`); the fields are read as what they turn out to be.
      const [ownId, identityId, named, label] = [field(e.data, 'id'), field(e.data, 'identityId'), field(e.data, 'name'), field(e.data, 'label')];
      const id = typeof ownId === 'string' ? ownId : typeof identityId === 'string' ? identityId : undefined;
      if (id === undefined) continue;
      let r = byId.get(id);
      if (!r) byId.set(id, (r = { kind, id, name: null, state: 'created', transitions: [] }));
      const name = typeof named === 'string' ? named : typeof label === 'string' && identityId === undefined ? label : undefined;
      if (name !== undefined) r.name = name;
      r.state = stateAfter(kind, r.state, e);
      r.transitions.push({ position: e.position, time: e.time, type: e.type, state: r.state });
      if (r.transitions.length > 2 * TRANSITIONS_KEPT) r.transitions = r.transitions.slice(-TRANSITIONS_KEPT);
    }
    for (const r of byId.values()) {
      r.transitions = r.transitions.slice(-TRANSITIONS_KEPT);
      out.push(r);
    }
  }
  return out;
}
