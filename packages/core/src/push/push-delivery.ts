import { accountDecider, accountStream } from '../accounting/account.ts';
import { endpointById } from '../catalogue/endpoints.ts';
import type { EngineServices } from '../handling/handler.ts';
import { DomainError } from '../calls/errors.ts';
import type { CallContext } from '../handling/handler.ts';
import { Params } from '../calls/params.ts';
import type { UnitOfWork } from '../kernel/unit-of-work.ts';
import type { Projections } from '../kernel/projection.ts';
import { cutBatch } from './batch.ts';
import { PushConnectors, type PushBatch, type PushConnector } from './connector.ts';
import { DELIVERING, deliveryOf, pausedUntil } from './delivery.ts';
import { subscriptionFeed, type FeedWindow, type PushFeed } from './feed.ts';
import { pushHandlers } from './handlers.ts';
import { historicsQuery } from '../historics/queries.ts';
import { timelineNextProgress } from '../historics/progress.ts';
import { pullFormatOf } from './output-types.ts';
import { FINISHING_MS, pushDecider, pushStream, statusAt, type PushEvent, type PushStatus, type PushSubscription } from './push-subscription.ts';
import type { HistoricsEvent } from '../historics/historics-query.ts';

/** Seconds between two batches when `output_params.delivery_frequency` is not given. */
export const DEFAULT_DELIVERY_FREQUENCY_S = 10;
/** The largest batch body, in bytes, when `output_params.max_size` is not given. */
export const DEFAULT_BATCH_MAX_SIZE = 10_485_760;
/**
 * How soon a subscription with nothing waiting looks again (a floor for `delivery_frequency` 0): once
 * after a batch, and every time with a feed of an embedder's own, whose growth nothing announces.
 */
export const IDLE_CHECK_MS = 1_000;

/**
 * The events after which a keeper asks again about an account's subscriptions that answered `null`:
 * those of calls that create or change a subscription (a keeper reading the log from the start finds every
 * subscription by its creation), and a historics query starting or resuming, whose results then grow.
 * Interactions recorded for the account also count; a keeper learns of those from the recording index
 * (`accountsFedAfter`), as they are the log's largest events. Delivery's own events are not among them:
 * `deliverDue` answers when it is next due, and a batch recorded for one subscription must not wake
 * every other of the account.
 */
export const PUSH_WAKE_EVENT_TYPES = [
  'PushSubscriptionCreated',
  'PushStatusChanged',
  'PushSubscriptionUpdated',
  'PushSubscriptionDeleted',
  'HistoricsStarted',
  'HistoricsResumed',
] as const satisfies readonly (PushEvent['type'] | HistoricsEvent['type'])[];

/** The account whose push subscriptions an event of `PUSH_WAKE_EVENT_TYPES` concerns. */
export const pushWakeAccount = (stream: string): string | undefined => {
  for (const prefix of ['push:', 'historics:']) if (stream.startsWith(prefix)) return stream.slice(prefix.length);
  return undefined;
};

const readNumber = (v: unknown): number | undefined => {
  const n = typeof v === 'string' && v.trim() !== '' ? Number(v) : v;
  return typeof n === 'number' && Number.isFinite(n) && n >= 0 ? n : undefined;
};

export const deliveryFrequencyMs = (sub: PushSubscription): number => (readNumber(sub.output_params['delivery_frequency']) ?? DEFAULT_DELIVERY_FREQUENCY_S) * 1000;
export const batchMaxSize = (sub: PushSubscription): number => Math.max(1, readNumber(sub.output_params['max_size']) ?? DEFAULT_BATCH_MAX_SIZE);

/** A subscription's feed read as a push/get would, outside any call (no lane, no charge). */
async function feedOf(feed: PushFeed, uow: UnitOfWork, projections: Projections, username: string, sub: PushSubscription): Promise<FeedWindow> {
  const account = await uow.load(accountDecider, accountStream(username));
  const ctx: CallContext = {
    call: { version: '1.5', endpoint: 'push.get' },
    version: '1.5',
    endpoint: endpointById('push.get'),
    params: new Params({}),
    now: uow.now,
    ids: { hex: () => '' },
    account,
    identityId: null,
    uow,
    settings: { limitingDay: 'pst', maxAttempts: 1 },
    projections,
  };
  const until = sub.end !== null ? Math.min(sub.end, uow.now) : uow.now;
  return feed(ctx, sub, sub.start, until);
}

export interface PushDeliveryOptions {
  connectors?: PushConnectors;
  feed?: PushFeed;
}

/**
 * Delivery by connectors, beside the call path: an engine's push endpoints learn of the connectors (the
 * ping, `remaining_bytes`), and `deliverDue` does what one subscription has due at the clock's time,
 * answering when it is next due. It reads no clock and sets no timer: a keeper (the server's
 * `PushKeeper`, or an embedder's own loop) decides when to call. Every outcome is an event of the
 * subscription, written as timed work is, never under the account's lane.
 */
export class PushDelivery {
  readonly connectors: PushConnectors;
  private readonly feed: PushFeed;
  /** Whether the feed grows only with the events named in PUSH_WAKE_EVENT_TYPES and recorded interactions (the platform's does). */
  private readonly announced: boolean;

  constructor(private readonly engine: EngineServices, options: PushDeliveryOptions = {}) {
    this.connectors = options.connectors ?? new PushConnectors();
    this.feed = options.feed ?? subscriptionFeed;
    this.announced = options.feed === undefined;
    engine.register(pushHandlers(this.feed, this.connectors));
  }

  /** Delivers subscriptions of `outputType` through `connector` from now on. */
  connect(outputType: string, connector: PushConnector): this {
    this.connectors.register(outputType, connector);
    return this;
  }

  /** When a subscription with nothing waiting must look again by itself (`null`: only when woken). */
  private async idleWake(uow: UnitOfWork, username: string, sub: PushSubscription, status: PushStatus, now: number, frequency: number): Promise<number | null> {
    const finished = status === 'finishing' ? sub.end! + FINISHING_MS : null;
    if (!this.announced) return finished ?? now + Math.max(frequency, IDLE_CHECK_MS);
    // A historics query releases its results as it runs: the clock alone grows that feed.
    const q = sub.hash_type === 'historic' ? await historicsQuery(uow, username, sub.hash) : undefined;
    const released = q ? timelineNextProgress(q, now) : null;
    return released === null ? finished : finished === null ? released : Math.min(released, finished);
  }

  /** The account's subscriptions that a connector delivers and that may still have something to do. */
  async subscriptions(username: string): Promise<string[]> {
    const state = await this.engine.command((uow) => uow.load(pushDecider, pushStream(username)));
    return state.order.filter((id) => {
      const sub = state.subscriptions[id]!;
      const status = statusAt(sub, this.engine.clock.now());
      return this.connectors.get(sub.output_type) !== undefined && status !== 'finished' && status !== 'failed' && status !== 'deleted';
    });
  }

  /**
   * Does what subscription `id` of `username` has due now: a retry, a new batch, or nothing yet. Answers
   * when to ask again (Unix ms), or `null` when nothing more will happen until the account's feed or
   * subscriptions change: an event of `PUSH_WAKE_EVENT_TYPES` for the account, or interactions recorded
   * for it. A subscription with nothing waiting is thus not asked about every second of clock time.
   */
  async deliverDue(username: string, id: string): Promise<number | null> {
    const stream = pushStream(username);
    const prepared = await this.engine.command(async (uow) => {
      const state = await uow.load(pushDecider, stream);
      const sub = state.subscriptions[id];
      const connector = sub && this.connectors.get(sub.output_type);
      if (!sub || !connector) return { next: null };
      const now = uow.now;
      const status = statusAt(sub, now);
      if (status === 'waiting_for_start') return { next: sub.start };
      const expires = pausedUntil(sub, status);
      if (expires !== null && now < expires) return { next: expires };
      if (expires !== null) {
        const waiting = Math.max(0, (await feedOf(this.feed, uow, this.engine.projections, username, sub)).length - sub.acked);
        await uow.execute(pushDecider, stream, { type: 'ExpirePausedPush', id, at: now, waiting });
        return { next: null };
      }
      if (!DELIVERING.includes(status)) return { next: null };
      const d = deliveryOf(sub);
      if (d.batch && d.retry_at !== null && now < d.retry_at) return { next: d.retry_at };
      const frequency = deliveryFrequencyMs(sub);
      const notYet = !d.batch && sub.last_request !== null && now < sub.last_request + frequency;
      // A finishing one is looked at even between batches: drained, it is finished without waiting a period.
      if (notYet && status !== 'finishing') return { next: sub.last_request! + frequency };
      const items = await feedOf(this.feed, uow, this.engine.projections, username, sub);
      const format = pullFormatOf(sub.output_params);
      let batch = d.batch;
      if (!batch) {
        const cut = cutBatch(items, sub.acked, batchMaxSize(sub), format, sub, now);
        if (!cut) {
          // Drained: a finishing subscription is finished now (not before the minute after its end).
          if (status === 'finishing' && sub.connector && now >= sub.end! + FINISHING_MS) {
            await uow.execute(pushDecider, stream, { type: 'FinishPush', id, at: now });
            return { next: null };
          }
          return { next: await this.idleWake(uow, username, sub, status, now, frequency) };
        }
        if (notYet) return { next: sub.last_request! + frequency };
        const opened = await uow.execute(pushDecider, stream, { type: 'OpenPushBatch', id, delivery_id: this.engine.ids.hex(32), from: sub.acked, to: cut.to, bytes: cut.bytes, at: now });
        batch = deliveryOf(opened.state.subscriptions[id]!).batch!;
      }
      const send: PushBatch = {
        subscription: { id: sub.id, name: sub.name, output_type: sub.output_type, output_params: sub.output_params, hash: sub.hash, hash_type: sub.hash_type },
        deliveryId: batch.delivery_id,
        format,
        interactions: items.slice(batch.from, batch.to),
        openedAt: batch.opened_at,
      };
      return { next: undefined, send, connector, waiting: items.length - sub.acked, frequency };
    });
    if (prepared.next !== undefined) return prepared.next;
    const { send, connector, waiting, frequency } = prepared as Required<typeof prepared>;
    // The batch is on record before it leaves: a crash from here on sends it again under the same id.
    let outcome;
    try {
      outcome = await connector.deliver(send);
    } catch (error) {
      outcome = { ok: false as const, message: `The connector failed: ${(error as Error).message}` };
    }
    return this.engine.command(async (uow) => {
      const command = outcome.ok
        ? { type: 'RecordPushDelivery' as const, id, delivery_id: send.deliveryId, at: uow.now }
        : { type: 'RecordPushFailure' as const, id, delivery_id: send.deliveryId, at: uow.now, message: outcome.message, min_delay_ms: frequency, waiting };
      try {
        const { state } = await uow.execute(pushDecider, stream, command);
        const sub = state.subscriptions[id]!;
        const d = deliveryOf(sub);
        if (sub.status === 'failed') return null;
        if (d.batch) return d.retry_at ?? uow.now;
        if (waiting > send.interactions.length) return uow.now + frequency;
        // Drained: a finishing subscription is looked at again to be finished (at the minute after its end).
        if (statusAt(sub, uow.now) === 'finishing' && sub.connector) return Math.max(uow.now + IDLE_CHECK_MS, sub.end! + FINISHING_MS);
        return uow.now + Math.max(frequency, IDLE_CHECK_MS);
      } catch (error) {
        // Deleted while the batch was on its way: nothing left to record.
        if (error instanceof DomainError) return null;
        throw error;
      }
    });
  }
}
