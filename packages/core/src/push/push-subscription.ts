import type { Decider, DomainEvent } from '../kernel/decider.ts';
import { evolveWith } from '../kernel/decider.ts';
import { BadRequest, Conflict, NotFound, illegalTransition } from '../calls/errors.ts';
import { checkStoredJson } from '../calls/input-limits.ts';
import { checkHolding } from '../accounting/holding-limits.ts';
import { decideDelivery, deliveryOf, evolveDelivery, type DeliveryCommand, type DeliveryEvent } from './delivery.ts';
import { PUSH_STATUSES, addLogEntry, type HashType, type PullPage, type PushLogEntry, type PushState, type PushStatus, type PushSubscription } from './subscription-state.ts';

export { PUSH_STATUSES, type HashType, type PullPage, type PushLogEntry, type PushState, type PushStatus, type PushSubscription };

/** A stopped (or ended) subscription delivers what it still holds for this long, then is finished. */
export const FINISHING_MS = 60_000;
/** Pages kept per subscription so that a cursor handed out recently still gives the same page. */
export const PAGES_KEPT = 64;

export type PushEvent =
  | DomainEvent<'PushSubscriptionCreated', {
      id: string;
      name: string;
      output_type: string;
      output_params: Record<string, unknown>;
      hash: string;
      hash_type: HashType;
      status: PushStatus;
      at: number;
      start: number;
      end: number | null;
      /** A connector delivers it: it finishes when drained (`PushSubscription.connector`). */
      connector?: true;
    }>
  | DomainEvent<'PushStatusChanged', { id: string; status: PushStatus; at: number; end?: number }>
  | DomainEvent<'PushSubscriptionUpdated', { id: string; at: number; name?: string; output_params?: Record<string, unknown> }>
  | DomainEvent<'PushSubscriptionDeleted', { id: string; at: number }>
  | DomainEvent<'PullPageServed', { id: string; from: number; to: number; bytes: number; at: number }>
  | DeliveryEvent;

/**
 * Every type a push stream holds, for readers that follow subscriptions through the log by type (the
 * server's push keeper) rather than reading every event. The check below fails to compile when a type
 * is added to `PushEvent` and not here.
 */
export const PUSH_EVENT_TYPES = [
  'PushSubscriptionCreated',
  'PushStatusChanged',
  'PushSubscriptionUpdated',
  'PushSubscriptionDeleted',
  'PullPageServed',
  'PushBatchOpened',
  'PushBatchDelivered',
  'PushDeliveryFailed',
  'PushDeliveryAbandoned',
] as const satisfies readonly PushEvent['type'][];
const everyPushType: [Exclude<PushEvent['type'], (typeof PUSH_EVENT_TYPES)[number]>] extends [never] ? true : false = true;
void everyPushType;

export type PushCommand =
  | {
      type: 'CreatePush';
      id: string;
      name: string;
      output_type: string;
      output_params: Record<string, unknown>;
      hash: string;
      hash_type: HashType;
      initial_status?: PushStatus | undefined;
      start?: number | undefined;
      end?: number | undefined;
      at: number;
      /** The package's `push_subscriptions`: subscriptions not deleted that the account may hold. */
      holdLimit: number;
      /** A connector delivers it (every output type but pull, where the server has one). */
      connector?: boolean | undefined;
    }
  | { type: 'PausePush'; id: string; at: number }
  | { type: 'ResumePush'; id: string; at: number }
  | { type: 'StopPush'; id: string; at: number }
  | { type: 'UpdatePush'; id: string; at: number; name?: string | undefined; output_params?: Record<string, unknown> | undefined }
  | { type: 'DeletePush'; id: string; at: number }
  /** Persists what time has done to a subscription (waiting → active, ended → finishing → finished). */
  | { type: 'ObservePush'; id: string; at: number }
  | { type: 'ServePullPage'; id: string; from: number; to: number; bytes: number; at: number }
  /** A finishing connector's subscription whose delivery found nothing left up to its end. */
  | { type: 'FinishPush'; id: string; at: number }
  | DeliveryCommand;

export const pushStream = (username: string): string => `push:${username}`;

export const INITIAL_STATUSES: PushStatus[] = ['active', 'paused', 'waiting_for_start'];

/** Which commands each status allows; anything else answers 409 naming both (docs/contract.md#states). */
export const PUSH_TRANSITIONS: Record<'pause' | 'resume' | 'stop' | 'update' | 'delete', PushStatus[]> = {
  pause: ['active', 'waiting_for_start'],
  resume: ['paused'],
  stop: ['active', 'paused', 'waiting_for_start'],
  update: ['active', 'paused', 'waiting_for_start'],
  delete: ['active', 'paused', 'waiting_for_start', 'finishing', 'finished', 'failed'],
};

/**
 * What time does to a subscription after its last persisted status: it starts at `start`, begins
 * finishing at `end`, and is finished `FINISHING_MS` later. A pure function of the state and `now`.
 */
export function pendingTransitions(sub: PushSubscription, now: number): { status: PushStatus; at: number }[] {
  const out: { status: PushStatus; at: number }[] = [];
  let status = sub.status;
  if (status === 'waiting_for_start' && sub.start <= now && (sub.end === null || sub.start < sub.end)) {
    status = 'active';
    out.push({ status, at: sub.start });
  }
  if ((status === 'active' || status === 'paused' || status === 'waiting_for_start') && sub.end !== null && sub.end <= now) {
    status = 'finishing';
    out.push({ status, at: sub.end });
  }
  // A connector's subscription finishes when its delivery has sent what it held (`FinishPush`), not when
  // the minute is up: a batch due later, or a retry, would otherwise be dropped with nothing said.
  if (status === 'finishing' && sub.end !== null && sub.end + FINISHING_MS <= now && !sub.connector) {
    status = 'finished';
    out.push({ status, at: sub.end + FINISHING_MS });
  }
  return out;
}

/** The status a subscription has at `now`. */
export function statusAt(sub: PushSubscription, now: number): PushStatus {
  const pending = pendingTransitions(sub, now);
  return pending.length > 0 ? pending[pending.length - 1]!.status : sub.status;
}

export const statusMessage = (status: PushStatus): string => `The status has changed to: ${status}`;

/** The subscription's log: what was persisted plus what time has done since. */
export function logAt(sub: PushSubscription, now: number): PushLogEntry[] {
  return [...sub.log, ...pendingTransitions(sub, now).map((t) => ({ at: t.at, success: true, message: statusMessage(t.status) }))];
}

/** Subscriptions the account holds: every one not deleted (finished and failed ones until deleted). */
export function heldSubscriptions(state: PushState): number {
  let held = 0;
  for (const id of state.order) if (state.subscriptions[id]!.status !== 'deleted') held++;
  return held;
}

/** The subscription `id` names; a deleted or unknown one is a 404 to every call. */
export function livePushSubscription(state: PushState, id: string): PushSubscription {
  const sub = state.subscriptions[id];
  if (!sub || sub.status === 'deleted') throw new NotFound(`Push subscription ${id} not found`);
  return sub;
}

function observed(sub: PushSubscription, at: number): PushEvent[] {
  return pendingTransitions(sub, at).map((t) => ({ type: 'PushStatusChanged', data: { id: sub.id, status: t.status, at: t.at } }));
}

function allow(action: keyof typeof PUSH_TRANSITIONS, status: PushStatus): void {
  if (!PUSH_TRANSITIONS[action].includes(status)) throw illegalTransition('push subscription', action, status);
}

export const pushDecider: Decider<PushState, PushCommand, PushEvent> = {
  name: 'push.v1',
  initialState: () => ({ subscriptions: {}, order: [] }),
  decide(command, state) {
    if (command.type === 'CreatePush') {
      if (state.subscriptions[command.id]) throw new BadRequest(`A push subscription with id ${command.id} already exists`);
      checkHolding('push_subscriptions', heldSubscriptions(state), command.holdLimit);
      checkStoredJson('output_params', command.output_params);
      const start = command.start ?? command.at;
      const end = command.end ?? null;
      if (end !== null && end <= start) throw new BadRequest('end must be after start');
      if (end !== null && end <= command.at) throw new BadRequest('end must be in the future');
      let status = command.initial_status ?? 'active';
      if (!INITIAL_STATUSES.includes(status)) throw new BadRequest(`initial_status must be one of ${INITIAL_STATUSES.join(', ')}`);
      if (status === 'active' && start > command.at) status = 'waiting_for_start';
      return [{
        type: 'PushSubscriptionCreated',
        data: {
          id: command.id,
          name: command.name,
          output_type: command.output_type,
          output_params: command.output_params,
          hash: command.hash,
          hash_type: command.hash_type,
          status,
          at: command.at,
          start,
          end,
          ...(command.connector ? { connector: true as const } : {}),
        },
      }];
    }
    const sub = livePushSubscription(state, command.id);
    const before = observed(sub, command.at);
    const now = statusAt(sub, command.at);
    const id = sub.id;
    const at = command.at;
    switch (command.type) {
      case 'ObservePush':
        return before;
      case 'PausePush':
        allow('pause', now);
        return [...before, { type: 'PushStatusChanged', data: { id, status: 'paused', at } }];
      case 'ResumePush':
        allow('resume', now);
        return [...before, { type: 'PushStatusChanged', data: { id, status: sub.start > at ? 'waiting_for_start' : 'active', at } }];
      case 'StopPush':
        allow('stop', now);
        return [...before, { type: 'PushStatusChanged', data: { id, status: 'finishing', at, end: at } }];
      case 'UpdatePush': {
        allow('update', now);
        if (command.name === undefined && command.output_params === undefined) throw new BadRequest('Nothing to update: give name or output_params');
        // The settings as stored after the merge: updates that each add a key cannot grow them past the bound.
        if (command.output_params !== undefined) checkStoredJson('output_params', command.output_params);
        return [...before, {
          type: 'PushSubscriptionUpdated',
          data: { id, at, ...(command.name !== undefined ? { name: command.name } : {}), ...(command.output_params !== undefined ? { output_params: command.output_params } : {}) },
        }];
      }
      case 'DeletePush':
        allow('delete', now);
        return [{ type: 'PushSubscriptionDeleted', data: { id, at } }];
      case 'ServePullPage': {
        if (command.to <= command.from || command.from < 0) throw new BadRequest('A pull page must hold at least one interaction');
        const known = sub.pages[String(command.from)];
        if (known && known.to !== command.to) throw new BadRequest(`The page at ${command.from} was already served up to ${known.to}`);
        return [...before, { type: 'PullPageServed', data: { id, from: command.from, to: command.to, bytes: command.bytes, at } }];
      }
      case 'FinishPush': {
        if (now !== 'finishing' || sub.end === null) throw illegalTransition('push subscription', 'finish', now);
        const batch = deliveryOf(sub).batch;
        if (batch) throw new Conflict(`Push subscription ${id} still has batch ${batch.delivery_id} on its way`);
        // Not before the minute after its end, as a subscription with nothing to deliver always finished.
        return [...before, { type: 'PushStatusChanged', data: { id, status: 'finished', at: Math.max(at, sub.end + FINISHING_MS) } }];
      }
      default:
        return [...before, ...decideDelivery(sub, now, command)];
    }
  },
  evolve: evolveWith<PushState, PushEvent>({
    PushSubscriptionCreated(draft, e) {
      draft.subscriptions[e.id] = {
        id: e.id,
        name: e.name,
        output_type: e.output_type,
        output_params: e.output_params,
        hash: e.hash,
        hash_type: e.hash_type,
        status: e.status,
        created_at: e.at,
        start: e.start,
        end: e.end,
        last_request: null,
        last_success: null,
        delivered: 0,
        acked: 0,
        pages: {},
        log: [{ at: e.at, success: true, message: `Subscription created; ${statusMessage(e.status)}` }],
        ...(e.connector ? { connector: true as const } : {}),
      };
      draft.order.push(e.id);
    },
    PushStatusChanged(draft, e) {
      const sub = draft.subscriptions[e.id]!;
      sub.status = e.status;
      if (e.status === 'paused') sub.paused_at = e.at;
      if (e.end !== undefined) sub.end = e.end;
      addLogEntry(sub, { at: e.at, success: true, message: statusMessage(e.status) });
    },
    PushSubscriptionUpdated(draft, e) {
      const sub = draft.subscriptions[e.id]!;
      if (e.name !== undefined) sub.name = e.name;
      if (e.output_params !== undefined) sub.output_params = e.output_params;
      addLogEntry(sub, { at: e.at, success: true, message: 'The subscription was updated' });
    },
    PushSubscriptionDeleted(draft, e) {
      const sub = draft.subscriptions[e.id]!;
      sub.status = 'deleted';
      // A deleted subscription is gone: keep only what tells it apart from one never created.
      sub.pages = {};
      sub.log = [];
      draft.order = draft.order.filter((id) => id !== e.id);
    },
    PullPageServed(draft, e) {
      const sub = draft.subscriptions[e.id]!;
      const key = String(e.from);
      if (!sub.pages[key]) {
        sub.pages[key] = { to: e.to, at: e.at, bytes: e.bytes };
        const keys = Object.keys(sub.pages).map(Number).sort((a, b) => a - b);
        for (const k of keys.slice(0, Math.max(0, keys.length - PAGES_KEPT))) delete sub.pages[String(k)];
      }
      if (e.to > sub.acked) {
        sub.delivered += e.to - sub.acked;
        sub.acked = e.to;
      }
      sub.last_request = e.at;
      sub.last_success = e.at;
    },
    ...evolveDelivery,
  }),
};
