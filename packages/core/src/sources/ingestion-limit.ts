/**
 * A managed source's per-minute ingestion limit (docs/contract.md#status-codes: 413 when exceeded): requests and bytes in
 * the clock minute a request arrives in. The figures default to those the original service reported
 * (10,000 requests; 300,000,000 bytes a minute) and can be set per platform.
 */
export interface IngestionLimits {
  requestsPerMinute: number;
  bytesPerMinute: number;
}

export const DEFAULT_INGESTION_LIMITS: IngestionLimits = { requestsPerMinute: 10_000, bytesPerMinute: 300_000_000 };

export const INGESTION_WINDOW_MS = 60_000;

export interface IngestionWindow {
  /** Unix ms of the minute mark the window opened at. */
  start: number;
  requests: number;
  bytes: number;
}

/** The window in force at `at`: the open one, or a fresh one from `at`'s minute mark. */
export function ingestionWindowAt(window: IngestionWindow | null, at: number): IngestionWindow {
  const start = Math.floor(at / INGESTION_WINDOW_MS) * INGESTION_WINDOW_MS;
  if (window && window.start === start) return window;
  return { start, requests: 0, bytes: 0 };
}

/** Why a request of `bytes` would exceed the limit in `window`, or `null` when it is admitted. */
export function ingestionRefusal(window: IngestionWindow, limits: IngestionLimits, bytes: number): string | null {
  if (window.requests + 1 > limits.requestsPerMinute) {
    return `Ingestion limit reached: ${limits.requestsPerMinute} requests a minute for this source`;
  }
  if (window.bytes + bytes > limits.bytesPerMinute) {
    return `Ingestion limit reached: ${limits.bytesPerMinute} bytes a minute for this source (${window.bytes} used, ${bytes} sent)`;
  }
  return null;
}

/** The `X-Ingestion-*-Ratelimit-*` headers of docs/clients.md#response-headers, after the window counted this request. */
export function ingestionHeaders(window: IngestionWindow, limits: IngestionLimits, now: number): Record<string, string> {
  const reset = window.start + INGESTION_WINDOW_MS;
  const resetSeconds = String(Math.floor(reset / 1000));
  const ttl = String(Math.max(0, Math.ceil((reset - now) / 1000)));
  return {
    'X-Ingestion-Request-Ratelimit-Limit': String(limits.requestsPerMinute),
    'X-Ingestion-Request-Ratelimit-Remaining': String(Math.max(0, limits.requestsPerMinute - window.requests)),
    'X-Ingestion-Request-Ratelimit-Reset': resetSeconds,
    'X-Ingestion-Request-Ratelimit-Reset-Ttl': ttl,
    'X-Ingestion-Data-Ratelimit-Limit': String(limits.bytesPerMinute),
    'X-Ingestion-Data-Ratelimit-Remaining': String(Math.max(0, limits.bytesPerMinute - window.bytes)),
    'X-Ingestion-Data-Ratelimit-Reset': resetSeconds,
    'X-Ingestion-Data-Ratelimit-Reset-Ttl': ttl,
  };
}
