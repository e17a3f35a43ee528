import { batchBody } from './batch.ts';
import type { DeliveryOutcome, OutboundAnswer, OutboundHttp, OutboundRequest, PushConnector } from './connector.ts';
import type { PullFormat } from './output-types.ts';

/** Hosts a server delivers to when its operator lists none: the machine itself (the stand-in runs on developers' machines). */
export const LOOPBACK_HOSTS: readonly string[] = ['127.0.0.1', 'localhost', '::1'];

export interface HttpConnectorOptions {
  outbound: OutboundHttp;
  /** Host names or addresses a subscription may send to (compared without case; IPv6 without brackets). */
  allowedHosts?: readonly string[];
}

const PHRASES: Record<number, string> = {
  400: 'bad request', 401: 'unauthorized', 403: 'forbidden', 404: 'not found', 405: 'method not allowed', 408: 'request timeout',
  413: 'payload too large', 429: 'too many requests', 500: 'internal server error', 502: 'bad gateway', 503: 'service unavailable',
  504: 'gateway timeout',
};

/** The ping's body: an empty batch a receiver parses as it parses any other. */
const PING_BODIES: Record<PullFormat, string> = {
  json_meta: '{"count":0,"interactions":[]}',
  json_array: '[]',
  json_new_line: '',
};

const CONTENT_TYPES: Record<PullFormat, string> = {
  json_meta: 'application/json',
  json_array: 'application/json',
  json_new_line: 'application/x-ndjson',
};

function hostOf(url: string): string | null {
  try {
    const u = new URL(url);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') return null;
    return u.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  } catch {
    return null;
  }
}

/** Base64 of UTF-8 text, without `Buffer` (the core runs anywhere `btoa` does). */
function base64(text: string): string {
  let binary = '';
  for (const byte of new TextEncoder().encode(text)) binary += String.fromCharCode(byte);
  return btoa(binary);
}

function authorization(settings: Record<string, unknown>): Record<string, string> {
  const auth = settings['auth'];
  if (typeof auth !== 'object' || auth === null) return {};
  const a = auth as Record<string, unknown>;
  if (a['type'] !== 'basic') return {};
  return { Authorization: `Basic ${base64(`${String(a['username'] ?? '')}:${String(a['password'] ?? '')}`)}` };
}

/** What an answer means for a batch: only a 2xx acknowledges it. */
export function outcomeOf(answer: OutboundAnswer): DeliveryOutcome {
  if ('error' in answer) return { ok: false, message: `Could not reach the endpoint: ${answer.error}` };
  if (answer.status >= 200 && answer.status < 300) return { ok: true };
  if (answer.status >= 300 && answer.status < 400) return { ok: false, message: `The endpoint answered with a redirect (${answer.status}), which is not followed` };
  const phrase = PHRASES[answer.status];
  return { ok: false, message: `The endpoint returned a ${answer.status} ${phrase ?? 'error'}` };
}

/**
 * The `http` connector: each batch is one request (POST, or PUT when `output_params.method` says so) to
 * `output_params.url` with the batch in the subscription's format, basic authentication when
 * `output_params.auth.type` is `basic`, gzip when `output_params.compression` is `gzip`, and the headers
 * `X-DataSift-Format` and `X-SDP-Delivery-Id`.
 */
export function httpConnector(options: HttpConnectorOptions): PushConnector {
  const allowed = new Set((options.allowedHosts ?? LOOPBACK_HOSTS).map((h) => h.replace(/^\[|\]$/g, '').toLowerCase()));
  const allowedList = [...allowed].join(', ');

  const check = (settings: Record<string, unknown>): string | null => {
    const url = String(settings['url'] ?? '');
    const host = hostOf(url);
    if (host === null) return 'output_params.url must be an http:// or https:// URL';
    if (!allowed.has(host)) {
      return `output_params.url: this server does not deliver to ${host}; it may deliver only to ${allowedList} (the operator's --push-allowed-hosts)`;
    }
    return null;
  };

  const request = (settings: Record<string, unknown>, format: PullFormat, body: string, headers: Record<string, string>): OutboundRequest => ({
    url: String(settings['url']),
    method: String(settings['method'] ?? 'post').toUpperCase() === 'PUT' ? 'PUT' : 'POST',
    headers: { 'Content-Type': CONTENT_TYPES[format], 'X-DataSift-Format': format, ...authorization(settings), ...headers },
    body,
    gzip: settings['compression'] === 'gzip',
    verifyTls: settings['verify_ssl'] !== false && settings['verify_ssl'] !== 'false',
  });

  return {
    check,
    async ping(settings, format) {
      const problem = check(settings);
      if (problem) return problem;
      const outcome = outcomeOf(await options.outbound.send(request(settings, format, PING_BODIES[format], { 'X-SDP-Ping': 'true' })));
      return outcome.ok ? null : `could not access the destination URL ${String(settings['url'])}: ${outcome.message}`;
    },
    async deliver(batch) {
      const settings = batch.subscription.output_params;
      const problem = check(settings);
      if (problem) return { ok: false, message: problem };
      const headers = { 'X-SDP-Delivery-Id': batch.deliveryId, 'X-SDP-Subscription-Id': batch.subscription.id };
      return outcomeOf(await options.outbound.send(request(settings, batch.format, batchBody(batch), headers)));
    },
  };
}
