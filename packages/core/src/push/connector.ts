import { BadRequest } from '../calls/errors.ts';
import type { PullFormat } from './output-types.ts';
import type { HashType } from './push-subscription.ts';

/** What a connector is handed to send: one batch, identical on every attempt. */
export interface PushBatch {
  subscription: { id: string; name: string; output_type: string; output_params: Record<string, unknown>; hash: string; hash_type: HashType };
  /** The same on every attempt of this batch (and after a crash), so a receiver can drop a repeat. */
  deliveryId: string;
  format: PullFormat;
  interactions: readonly unknown[];
  /** When the batch was first opened (json_meta's `delivered_at`). */
  openedAt: number;
}

/** A delivery's outcome: `ok` once the destination has acknowledged the batch; otherwise why not. */
export type DeliveryOutcome = { ok: true } | { ok: false; message: string };

/**
 * A destination kind (`http`, `s3`, ...). The platform does the rest for every connector alike: it queues
 * what the subscription's source yields, cuts batches no larger than `max_size` no more often than
 * `delivery_frequency`, retries failures with backoff, logs every outcome and fails a subscription that
 * could not deliver for an hour.
 */
export interface PushConnector {
  /** A problem with the settings the connector can see without I/O (an address not allowed), or null. */
  check?(settings: Record<string, unknown>): string | null;
  /** Asked by push/validate and push/create: can the destination be reached? A problem, or null. */
  ping?(settings: Record<string, unknown>, format: PullFormat): Promise<string | null>;
  deliver(batch: PushBatch): Promise<DeliveryOutcome>;
}

/** The connectors an engine delivers with, by output type. Types without one are kept but not delivered. */
export class PushConnectors {
  private readonly byType = new Map<string, PushConnector>();

  register(outputType: string, connector: PushConnector): this {
    this.byType.set(outputType, connector);
    return this;
  }

  get(outputType: string): PushConnector | undefined {
    return outputType === 'pull' ? undefined : this.byType.get(outputType);
  }

  get size(): number {
    return this.byType.size;
  }

  /** The settings check and the ping of push/validate and push/create: a 400 naming what failed. */
  async admit(outputType: string, settings: Record<string, unknown>, format: PullFormat, ping: boolean): Promise<void> {
    const connector = this.get(outputType);
    if (!connector) return;
    const problem = connector.check?.(settings) ?? (ping ? await connector.ping?.(settings, format) : null);
    if (problem) throw new BadRequest(problem);
  }
}

/** One outbound HTTP request, as the core asks for it. The adapter gzips the body when `gzip` is set. */
export interface OutboundRequest {
  url: string;
  method: 'POST' | 'PUT';
  headers: Record<string, string>;
  body: string;
  gzip: boolean;
  /** Check the destination's TLS certificate (https only). */
  verifyTls: boolean;
}

/** The answer's status, or why there was none (refused, timed out, ...). Redirects are answers, not followed. */
export type OutboundAnswer = { status: number } | { error: string };

/**
 * The port through which the core reaches the network: the core never opens a socket itself. `@sdp/http`
 * implements it over Node's `http` (`nodeOutbound`).
 */
export interface OutboundHttp {
  send(request: OutboundRequest): Promise<OutboundAnswer>;
}
