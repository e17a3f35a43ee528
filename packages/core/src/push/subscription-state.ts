// The shape of an account's push subscriptions, read by the subscription decider and by connector delivery.

/** The states of docs/contract.md#states. `deleted` ones answer 404 to every call. */
export const PUSH_STATUSES = ['active', 'paused', 'waiting_for_start', 'finishing', 'finished', 'failed', 'deleted'] as const;
export type PushStatus = (typeof PUSH_STATUSES)[number];
export type HashType = 'stream' | 'historic';

export interface PullPage {
  to: number;
  at: number;
  bytes: number;
}

export interface PushLogEntry {
  at: number;
  success: boolean;
  message: string;
}

/**
 * The batch on its way: persisted before it is sent, so that a retry (or a send after a crash) carries
 * the same interactions under the same delivery id.
 */
export interface OpenBatch {
  delivery_id: string;
  from: number;
  to: number;
  bytes: number;
  opened_at: number;
  attempts: number;
}

export interface ConnectorDelivery {
  batch: OpenBatch | null;
  /** When the current run of failures began; `null` while deliveries succeed. */
  failing_since: number | null;
  /** The next attempt of a batch that failed. */
  retry_at: number | null;
  lost_data: boolean;
}

export interface PushSubscription {
  id: string;
  name: string;
  output_type: string;
  output_params: Record<string, unknown>;
  /** The filter hash, or the historics id for `hash_type: historic`. */
  hash: string;
  hash_type: HashType;
  /** The status as last persisted; `statusAt` adds what time has done since. */
  status: PushStatus;
  created_at: number;
  start: number;
  /** Requested end, or the stop time; `null` while open-ended. */
  end: number | null;
  last_request: number | null;
  last_success: number | null;
  delivered: number;
  /** The feed position a pull without a cursor starts from. */
  acked: number;
  /** Pages served, by their first position: the same cursor always gives the same page. */
  pages: Record<string, PullPage>;
  /** Its latest `PUSH_LOG_KEPT` entries (`addLogEntry`). */
  log: PushLogEntry[];
  /** When it was last paused (a connector's subscription paused for an hour fails). */
  paused_at?: number;
  /** Delivery by a connector (absent in states folded before connectors delivered): see `delivery.ts`. */
  delivery?: ConnectorDelivery;
  /**
   * Set when a connector delivers it (every output type but pull): once finishing, it is finished by its
   * delivery when what it held up to its end is delivered (`FinishPush`), or fails with `lost_data`,
   * never by the clock alone with data waiting. Absent in subscriptions created before this rule.
   */
  connector?: true;
}

export interface PushState {
  subscriptions: Record<string, PushSubscription>;
  order: string[];
}

/**
 * Log entries a subscription keeps: its latest ones. Every delivery adds one, so a subscription that
 * delivers for months would otherwise hold, and `push/log` sort, an entry per batch it ever sent.
 */
export const PUSH_LOG_KEPT = 200;

/** Adds an entry to a subscription's log (a draft's or a copy's), dropping the oldest past `PUSH_LOG_KEPT`. */
export function addLogEntry(sub: { log: PushLogEntry[] }, entry: PushLogEntry): void {
  sub.log.push(entry);
  if (sub.log.length > PUSH_LOG_KEPT) sub.log.splice(0, sub.log.length - PUSH_LOG_KEPT);
}
