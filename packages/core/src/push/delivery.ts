import type { Draft } from 'immer';
import type { DomainEvent } from '../kernel/decider.ts';
import { BadRequest, Conflict } from '../calls/errors.ts';
import { addLogEntry, type ConnectorDelivery, type OpenBatch, type PushState, type PushStatus, type PushSubscription } from './subscription-state.ts';

export type { ConnectorDelivery, OpenBatch };

/** A subscription that could not deliver for this long (clock time) fails, and what it held is lost. */
export const UNDELIVERABLE_MS = 3_600_000;
/** The first retry waits this long; each further one twice as long, up to `RETRY_MAX_MS`. */
export const RETRY_FIRST_MS = 10_000;
export const RETRY_MAX_MS = 600_000;

export const NO_DELIVERY: ConnectorDelivery = { batch: null, failing_since: null, retry_at: null, lost_data: false };

export const deliveryOf = (sub: PushSubscription): ConnectorDelivery => sub.delivery ?? NO_DELIVERY;

export type DeliveryEvent =
  | DomainEvent<'PushBatchOpened', { id: string; delivery_id: string; from: number; to: number; bytes: number; at: number }>
  | DomainEvent<'PushBatchDelivered', { id: string; delivery_id: string; at: number }>
  | DomainEvent<'PushDeliveryFailed', { id: string; delivery_id: string; at: number; message: string; retry_at: number }>
  | DomainEvent<'PushDeliveryAbandoned', { id: string; at: number; message: string; lost: number }>;

export type DeliveryCommand =
  | { type: 'OpenPushBatch'; id: string; delivery_id: string; from: number; to: number; bytes: number; at: number }
  | { type: 'RecordPushDelivery'; id: string; delivery_id: string; at: number }
  /** `waiting`: interactions not yet delivered (reported lost if the subscription fails). */
  | { type: 'RecordPushFailure'; id: string; delivery_id: string; at: number; message: string; min_delay_ms: number; waiting: number }
  /** A connector's subscription paused for an hour fails, as the original's did. */
  | { type: 'ExpirePausedPush'; id: string; at: number; waiting: number };

/** Statuses in which a connector sends: a finishing subscription still delivers what it had up to its end. */
export const DELIVERING: PushStatus[] = ['active', 'finishing'];

/** The wait before attempt `n + 1` of a batch whose `n`th attempt failed. */
export function retryDelay(failures: number): number {
  return Math.min(RETRY_MAX_MS, RETRY_FIRST_MS * 2 ** Math.min(30, Math.max(0, failures - 1)));
}

export const ABANDONED_MESSAGE = 'Stopped due to too many failed delivery attempts';
export const PAUSED_TOO_LONG_MESSAGE = 'The delivery was paused for too long';

/** When a paused subscription fails if nobody resumes it; `null` when it is not paused. */
export function pausedUntil(sub: PushSubscription, status: PushStatus): number | null {
  return status === 'paused' ? (sub.paused_at ?? sub.created_at) + UNDELIVERABLE_MS : null;
}

/** Decides a delivery command on a live subscription whose status at the command's time is `status`. */
export function decideDelivery(sub: PushSubscription, status: PushStatus, command: DeliveryCommand): DeliveryEvent[] {
  const d = deliveryOf(sub);
  const { id, at } = command;
  switch (command.type) {
    case 'OpenPushBatch': {
      if (!DELIVERING.includes(status)) throw new Conflict(`Cannot deliver push subscription ${id}: it is ${status}`);
      if (d.batch) throw new Conflict(`Push subscription ${id} already has batch ${d.batch.delivery_id} on its way`);
      if (command.from !== sub.acked || command.to <= command.from) throw new BadRequest(`A batch must start at ${sub.acked} and hold at least one interaction`);
      return [{ type: 'PushBatchOpened', data: { id, delivery_id: command.delivery_id, from: command.from, to: command.to, bytes: command.bytes, at } }];
    }
    case 'RecordPushDelivery':
      // An outcome for a batch no longer open (recorded by another process, or the subscription failed) changes nothing.
      return d.batch?.delivery_id === command.delivery_id ? [{ type: 'PushBatchDelivered', data: { id, delivery_id: command.delivery_id, at } }] : [];
    case 'RecordPushFailure': {
      if (d.batch?.delivery_id !== command.delivery_id) return [];
      const since = d.failing_since ?? at;
      const failed: DeliveryEvent = { type: 'PushDeliveryFailed', data: { id, delivery_id: command.delivery_id, at, message: command.message, retry_at: 0 } };
      if (at - since >= UNDELIVERABLE_MS) {
        return [failed, { type: 'PushDeliveryAbandoned', data: { id, at, message: ABANDONED_MESSAGE, lost: command.waiting } }];
      }
      // The last attempt falls at the hour's end, so a receiver down for an hour fails the subscription on time.
      const delay = Math.max(retryDelay(d.batch.attempts + 1), command.min_delay_ms);
      failed.data.retry_at = Math.min(at + delay, since + UNDELIVERABLE_MS);
      return [failed];
    }
    case 'ExpirePausedPush': {
      const until = pausedUntil(sub, status);
      if (until === null || at < until) throw new Conflict(`Push subscription ${id} has not been paused for an hour`);
      return [{ type: 'PushDeliveryAbandoned', data: { id, at, message: PAUSED_TOO_LONG_MESSAGE, lost: command.waiting } }];
    }
  }
}

type Recipes = {
  [T in DeliveryEvent['type']]: (draft: Draft<PushState>, data: Extract<DeliveryEvent, { type: T }>['data']) => void;
};

function delivery(draft: Draft<PushState>, id: string): { sub: Draft<PushSubscription>; d: Draft<ConnectorDelivery> } {
  const sub = draft.subscriptions[id]!;
  sub.delivery ??= { ...NO_DELIVERY };
  return { sub, d: sub.delivery };
}

export const evolveDelivery: Recipes = {
  PushBatchOpened(draft, e) {
    const { d } = delivery(draft, e.id);
    d.batch = { delivery_id: e.delivery_id, from: e.from, to: e.to, bytes: e.bytes, opened_at: e.at, attempts: 0 };
    d.retry_at = null;
  },
  PushBatchDelivered(draft, e) {
    const { sub, d } = delivery(draft, e.id);
    const batch = d.batch!;
    sub.delivered += batch.to - batch.from;
    sub.acked = batch.to;
    sub.last_request = e.at;
    sub.last_success = e.at;
    addLogEntry(sub, { at: e.at, success: true, message: batch.attempts > 0 ? 'Successfully delivered after delivery failure(s)' : 'The delivery has completed' });
    d.batch = null;
    d.failing_since = null;
    d.retry_at = null;
  },
  PushDeliveryFailed(draft, e) {
    const { sub, d } = delivery(draft, e.id);
    d.batch!.attempts += 1;
    d.failing_since ??= e.at;
    d.retry_at = e.retry_at;
    sub.last_request = e.at;
    addLogEntry(sub, { at: e.at, success: false, message: e.message });
  },
  PushDeliveryAbandoned(draft, e) {
    const { sub, d } = delivery(draft, e.id);
    sub.status = 'failed';
    d.batch = null;
    d.retry_at = null;
    d.lost_data = e.lost > 0;
    addLogEntry(sub, { at: e.at, success: false, message: e.lost > 0 ? `${e.message}; ${e.lost} undelivered interaction(s) lost` : e.message });
    addLogEntry(sub, { at: e.at, success: false, message: 'The status has changed to: failed' });
  },
};
