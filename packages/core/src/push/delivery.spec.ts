import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { deciderSpec } from '@sdp/testing';
import { utf8Length } from '../calls/utf8.ts';
import { batchBody, cutBatch } from './batch.ts';
import { RETRY_FIRST_MS, RETRY_MAX_MS, UNDELIVERABLE_MS, retryDelay, type DeliveryEvent } from './delivery.ts';
import { PULL_FORMATS } from './output-types.ts';
import { pushDecider, type PushEvent } from './push-subscription.ts';

const T0 = Date.parse('2026-03-01T10:00:00Z');
const ID = 'a'.repeat(32);
const DID = 'd'.repeat(32);
const spec = () => deciderSpec(pushDecider);

const created: PushEvent = {
  type: 'PushSubscriptionCreated',
  data: { id: ID, name: 'sub', output_type: 'http', output_params: { url: 'http://127.0.0.1/' }, hash: 'b'.repeat(32), hash_type: 'stream', status: 'active', at: T0, start: T0, end: null },
};
const opened = (from = 0, to = 3, at = T0): DeliveryEvent => ({ type: 'PushBatchOpened', data: { id: ID, delivery_id: DID, from, to, bytes: 90, at } });
const failed = (at: number, retry_at: number, message = 'The endpoint returned a 500 internal server error'): DeliveryEvent => ({
  type: 'PushDeliveryFailed',
  data: { id: ID, delivery_id: DID, at, message, retry_at },
});
const failure = (at: number, waiting = 3) => ({ type: 'RecordPushFailure' as const, id: ID, delivery_id: DID, at, message: 'The endpoint returned a 500 internal server error', min_delay_ms: 1000, waiting });

describe('delivery by a connector: given / when / then', () => {
  it('opens a batch from the acknowledged position', () => {
    spec().given([created]).when({ type: 'OpenPushBatch', id: ID, delivery_id: DID, from: 0, to: 3, bytes: 90, at: T0 }).then([opened()]);
  });
  it('refuses a second batch while one is on its way, one that skips interactions, and one on a paused subscription', () => {
    spec().given([created, opened()]).when({ type: 'OpenPushBatch', id: ID, delivery_id: 'e'.repeat(32), from: 0, to: 3, bytes: 90, at: T0 }).thenThrows(409, /already has batch/);
    spec().given([created]).when({ type: 'OpenPushBatch', id: ID, delivery_id: DID, from: 1, to: 3, bytes: 90, at: T0 }).thenThrows(400, /must start at 0/);
    spec()
      .given([created, { type: 'PushStatusChanged', data: { id: ID, status: 'paused', at: T0 } }])
      .when({ type: 'OpenPushBatch', id: ID, delivery_id: DID, from: 0, to: 3, bytes: 90, at: T0 })
      .thenThrows(409, /it is paused/);
  });
  it('a first failure schedules a retry after the first backoff (or the subscription frequency, if longer)', () => {
    spec().given([created, opened()]).when(failure(T0 + 5)).then([failed(T0 + 5, T0 + 5 + RETRY_FIRST_MS)]);
    spec().given([created, opened()]).when({ ...failure(T0 + 5), min_delay_ms: 60_000 }).then([failed(T0 + 5, T0 + 5 + 60_000)]);
  });
  it('the last retry falls at the hour, and a failure an hour after the first fails the subscription with its data lost', () => {
    const since = T0 + 5;
    const late = since + UNDELIVERABLE_MS - 1000;
    spec().given([created, opened(), failed(since, since + RETRY_FIRST_MS)]).when(failure(late)).then([failed(late, since + UNDELIVERABLE_MS)]);
    const end = since + UNDELIVERABLE_MS;
    spec()
      .given([created, opened(), failed(since, since + RETRY_FIRST_MS)])
      .when(failure(end, 7))
      .then([failed(end, 0), { type: 'PushDeliveryAbandoned', data: { id: ID, at: end, message: 'Stopped due to too many failed delivery attempts', lost: 7 } }]);
  });
  it('an acknowledgement moves the queue on; an outcome for a batch no longer open changes nothing', () => {
    spec().given([created, opened()]).when({ type: 'RecordPushDelivery', id: ID, delivery_id: DID, at: T0 + 9 }).then([{ type: 'PushBatchDelivered', data: { id: ID, delivery_id: DID, at: T0 + 9 } }]);
    spec().given([created, opened(), { type: 'PushBatchDelivered', data: { id: ID, delivery_id: DID, at: T0 + 9 } }]).when({ type: 'RecordPushDelivery', id: ID, delivery_id: DID, at: T0 + 10 }).then([]);
    spec().given([created]).when(failure(T0)).then([]);
  });
  it('folds into acked, counts, last_request / last_success and the log', () => {
    let state = pushDecider.initialState();
    for (const e of [created, opened(), failed(T0 + 5, T0 + 10_005), { type: 'PushBatchDelivered', data: { id: ID, delivery_id: DID, at: T0 + 20_000 } }] as PushEvent[]) {
      state = pushDecider.evolve(state, e);
    }
    const sub = state.subscriptions[ID]!;
    expect(sub).toMatchObject({ acked: 3, delivered: 3, last_request: T0 + 20_000, last_success: T0 + 20_000, delivery: { batch: null, failing_since: null, lost_data: false } });
    expect(sub.log.slice(1).map((e) => [e.success, e.message])).toEqual([
      [false, 'The endpoint returned a 500 internal server error'],
      [true, 'Successfully delivered after delivery failure(s)'],
    ]);
  });
  it('a subscription paused for an hour fails, its waiting data lost; not a minute sooner', () => {
    const paused: PushEvent = { type: 'PushStatusChanged', data: { id: ID, status: 'paused', at: T0 + 1000 } };
    spec().given([created, paused]).when({ type: 'ExpirePausedPush', id: ID, at: T0 + 1000 + UNDELIVERABLE_MS - 60_000, waiting: 4 }).thenThrows(409, /not been paused for an hour/);
    spec().given([created]).when({ type: 'ExpirePausedPush', id: ID, at: T0 + 2 * UNDELIVERABLE_MS, waiting: 4 }).thenThrows(409);
    spec()
      .given([created, paused])
      .when({ type: 'ExpirePausedPush', id: ID, at: T0 + 1000 + UNDELIVERABLE_MS, waiting: 4 })
      .then([{ type: 'PushDeliveryAbandoned', data: { id: ID, at: T0 + 1000 + UNDELIVERABLE_MS, message: 'The delivery was paused for too long', lost: 4 } }]);
  });
  it('waits longer after each failure, never more than the cap', () => {
    expect([1, 2, 3, 4, 5, 6, 7, 40].map(retryDelay)).toEqual([10_000, 20_000, 40_000, 80_000, 160_000, 320_000, RETRY_MAX_MS, RETRY_MAX_MS]);
  });
});

describe('cutting batches', () => {
  const sub = { id: ID, name: 'sub', output_type: 'http', output_params: {}, hash: 'b'.repeat(32), hash_type: 'stream' as const };
  const interaction = fc.record({ interaction: fc.record({ id: fc.string({ maxLength: 8 }), content: fc.string({ maxLength: 120 }) }) });

  test.prop([fc.array(interaction, { maxLength: 40 }), fc.nat({ max: 39 }), fc.integer({ min: 1, max: 3000 }), fc.constantFrom(...PULL_FORMATS)])(
    'a batch body never exceeds max_size unless it holds a single interaction, and takes as many as fit',
    (feed, fromRaw, maxSize, format) => {
      const from = Math.min(fromRaw, feed.length);
      const cut = cutBatch(feed, from, maxSize, format, sub, T0);
      if (from >= feed.length) {
        expect(cut).toBeNull();
        return;
      }
      const body = (to: number) => batchBody({ subscription: sub, deliveryId: DID, format, interactions: feed.slice(from, to), openedAt: T0 });
      expect(cut!.to).toBeGreaterThan(from);
      expect(cut!.bytes).toBe(utf8Length(body(cut!.to)));
      if (cut!.to - from > 1) expect(cut!.bytes).toBeLessThanOrEqual(maxSize);
      if (cut!.to < feed.length) expect(utf8Length(body(cut!.to + 1))).toBeGreaterThan(maxSize);
    },
  );
});
