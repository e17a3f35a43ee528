import {
  DomainError,
  RESOURCE_STREAMS,
  capacityStream,
  dailyAccountLimit,
  dailyCapacityDecider,
  limitingDayOf,
  queuedAt,
  taskSlotsDecider,
  tasksStream,
  type Engine,
  type LimitingDay,
  type ResourceKind,
} from '@sdp/core';
import type { EventStore, StoredEvent } from '@sdp/core/kernel';
import { jsonResponse } from '@sdp/http';
import type { OperatorRoute } from '../operator-api.ts';
import { AccountDirectory } from './account-directory.ts';
import type { WriteLog } from './write-log.ts';
import { groupWrites, type CallOfWrite } from './page/writes.js';

/** The resource kinds of an account, each one stream (`RESOURCE_STREAMS`). */
export const RESOURCE_KINDS = Object.keys(RESOURCE_STREAMS) as ResourceKind[];

export interface Transition {
  position: number;
  time: number;
  type: string;
  /** The resource's state after this event. */
  state: string;
  /** The call whose write held the event; null for the operator's or the clock's work. */
  call: (CallOfWrite & { position: number }) | null;
}

export interface ResourceView {
  kind: ResourceKind;
  id: string;
  name: string | null;
  state: string;
  transitions: Transition[];
}

/** How far back from an event a write's charge can be (a call writes a handful of events). */
const WRITE_REACH = 32;
/** Transitions kept per resource, newest: a pulled subscription records every page. */
const TRANSITIONS_KEPT = 50;

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
 * The operator calls the console reads: every account with its gauges, and an account's resources with
 * the transitions the log records for each. Mounted beside the operator API, behind the same token.
 */
export function consoleReadRoutes(engine: Engine, clock: { kind?: string }, writes: WriteLog): OperatorRoute[] {
  const directory = new AccountDirectory(engine.store);

  // One poll reads every account at one instant and one limiting day.
  // Read, never decided on: the engine's loaded states serve, and nothing is written or guarded.
  async function gauges(username: string, now: number, day: LimitingDay) {
    const view = await engine.accountView(username);
    const tasks = (await engine.loader.loadCurrent(taskSlotsDecider, tasksStream(username))).state;
    const capacity = (await engine.loader.loadCurrent(dailyCapacityDecider, capacityStream(username, day.key))).state;
    const slots = Math.max(1, view.package.task_slots);
    return {
      ...view,
      recent_charges: directory.recentCharges(username),
      task_queues: Array.from({ length: slots }, (_, slot) => {
        const s = tasks.slots[slot];
        return {
          slot,
          queued: queuedAt(s, now),
          // When the queued tasks finish: the console names what a clock advance made due.
          finishes: (s?.queue ?? []).filter((q) => q.finishAt > now).slice(0, 20).map((q) => q.finishAt),
        };
      }),
      capacity_today: { day: day.key, used: capacity.used, limit: dailyAccountLimit(view.package.index_capacity_per_month), ends: day.end },
    };
  }

  async function resources(username: string): Promise<ResourceView[]> {
    await engine.accountView(username); // 404 for an unknown account
    const out: ResourceView[] = [];
    for (const kind of RESOURCE_KINDS) {
      const byId = new Map<string, ResourceView>();
      for (const e of await engine.store.readStream(RESOURCE_STREAMS[kind](username))) {
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
        r.transitions.push({ position: e.position, time: e.time, type: e.type, state: r.state, call: null });
      }
      for (const r of byId.values()) {
        r.transitions = r.transitions.slice(-TRANSITIONS_KEPT);
        out.push(r);
      }
    }
    const calls = await callsAt(engine.store, writes, out.flatMap((r) => r.transitions.map((t) => t.position)));
    for (const r of out) for (const t of r.transitions) t.call = calls.get(t.position) ?? null;
    return out;
  }

  return [
    {
      method: 'GET',
      path: ['accounts'],
      run: async () => {
        const usernames = await directory.usernames();
        const now = engine.clock.now();
        const day = limitingDayOf(now, engine.settings.limitingDay);
        const accounts = [];
        for (const u of usernames) accounts.push(await gauges(u, now, day));
        return jsonResponse(200, { now, kind: clock.kind === 'manual' ? 'manual' : 'system', head: directory.head, accounts });
      },
    },
    {
      method: 'GET',
      path: ['writes'],
      run: async ({ query }) => {
        const after = wholeNumber(query.get('after'), 'after') ?? 0;
        const until = wholeNumber(query.get('until'), 'until');
        return jsonResponse(200, { writes: writes.between(after, until) });
      },
    },
    { method: 'GET', path: ['accounts', '*', 'resources'], run: async ({ params }) => jsonResponse(200, { resources: await resources(params[0]!) }) },
  ];
}

function wholeNumber(raw: string | null, name: string): number | undefined {
  if (raw === null || raw === '') return undefined;
  if (!/^\d+$/.test(raw) || !Number.isSafeInteger(Number(raw))) throw new DomainError(400, `${name} must be a whole number, 0 or more`);
  return Number(raw);
}

/**
 * The call whose write holds each event at the given positions: the log around them is read in as few
 * ranges as the positions allow, and grouped into writes by the same rule as the page's event log.
 */
async function callsAt(store: EventStore, writes: WriteLog, positions: number[]): Promise<Map<number, Transition['call']>> {
  const sorted = [...new Set(positions)].sort((a, b) => a - b);
  const ranges: { from: number; to: number }[] = [];
  for (const p of sorted) {
    const from = Math.max(0, p - WRITE_REACH);
    const last = ranges[ranges.length - 1];
    if (last && from <= last.to) last.to = p;
    else ranges.push({ from, to: p });
  }
  const calls = new Map<number, Transition['call']>();
  for (const range of ranges) {
    // A recorded write that began before the range is read whole, so its charge is seen.
    const known = writes.between(range.from, range.to);
    const from = known.length > 0 ? Math.min(range.from, known[0]![0] - 1) : range.from;
    for (const write of groupWrites(await store.readAll(from, range.to - from), known)) {
      const call = write.call ? { ...write.call, position: write.events[0]!.position } : null;
      for (const e of write.events) calls.set(e.position, call);
    }
  }
  return calls;
}
