import { batchBody } from './batch.ts';
import type { DeliveryOutcome, OutboundAnswer, OutboundHttp, OutboundRequest, PushConnector } from './connector.ts';
import type { PullFormat } from './output-types.ts';

/** Hosts a server delivers to when its operator lists none: the machine itself (the stand-in runs on developers' machines). */
export const LOOPBACK_HOSTS: readonly string[] = ['127.0.0.1', 'localhost', '::1'];

export interface HttpConnectorOptions {
  outbound: OutboundHttp;
  /** Host names or addresses a subscription may send to (compared without case; IPv6 without brackets). */
  allowedHosts?: readonly string[];
  /**
   * Where the server itself listens, asked at every check (ports are known only once it listens, and
   * interfaces come and go). A push there would feed the server its own output: a subscription whose
   * source is the server's own ingestion grows without end, paid for by one call.
   */
  own?: () => OwnEndpoints;
}

/** The server's own listening places, as the server knows them: the core cannot ask the machine. */
export interface OwnEndpoints {
  /** Every TCP port the server (each of its workers, each listener) listens on. */
  ports: readonly number[];
  /**
   * Its addresses beyond loopback and the unspecified ones (always counted as its own): the address it
   * listens on, or with a wildcard listen every interface's address.
   */
  addresses: readonly string[];
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

/**
 * The host and port a URL reaches, through WHATWG `URL`, which already writes every spelling of an IPv4
 * address (`127.1`, `2130706433`, `0x7f.1`) as four decimals and IPv6 in its shortest form.
 */
function targetOf(url: string): { host: string; port: number } | null {
  try {
    const u = new URL(url);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') return null;
    const port = u.port === '' ? (u.protocol === 'https:' ? 443 : 80) : Number(u.port);
    return { host: u.hostname.replace(/^\[|\]$/g, '').toLowerCase(), port };
  } catch {
    return null;
  }
}

/** Four octets as one number, or null when `text` is not dotted-decimal IPv4. */
function ipv4(text: string): number | null {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(text);
  if (!m) return null;
  let n = 0;
  for (let i = 1; i <= 4; i++) {
    const octet = Number(m[i]);
    if (octet > 255) return null;
    n = n * 256 + octet;
  }
  return n;
}

/** Eight 16-bit groups, or null when `text` is not IPv6 (a dotted IPv4 tail allowed, no zone). */
function ipv6(text: string): number[] | null {
  if (!text.includes(':') || text.includes('%')) return null;
  let groups = text;
  const lastColon = groups.lastIndexOf(':');
  if (groups.includes('.', lastColon)) {
    const v4 = ipv4(groups.slice(lastColon + 1));
    if (v4 === null) return null;
    groups = `${groups.slice(0, lastColon + 1)}${Math.floor(v4 / 65536).toString(16)}:${(v4 % 65536).toString(16)}`;
  }
  const halves = groups.split('::');
  if (halves.length > 2) return null;
  const read = (part: string): number[] | null => {
    if (part === '') return [];
    const out: number[] = [];
    for (const g of part.split(':')) {
      if (!/^[0-9a-f]{1,4}$/i.test(g)) return null;
      out.push(parseInt(g, 16));
    }
    return out;
  };
  const head = read(halves[0]!);
  const rest = halves.length === 2 ? read(halves[1]!) : [];
  if (head === null || rest === null) return null;
  const given = head.length + rest.length;
  if (halves.length === 2 ? given > 7 : given !== 8) return null;
  return [...head, ...new Array<number>(8 - given).fill(0), ...rest];
}

/**
 * One key per address however written: IPv4, and IPv6 that carries IPv4 (mapped `::ffff:a.b.c.d`, and
 * the old compatible `::a.b.c.d`, which takes in `::1` and `::`), as `4:n`; other IPv6 as `6:` and its
 * groups (a zone dropped); a name as itself, lowercase, without the root's trailing dot.
 */
function addressKey(host: string): string {
  const bare = host.replace(/^\[|\]$/g, '').replace(/%.*$/, '').toLowerCase();
  const v4 = ipv4(bare);
  if (v4 !== null) return `4:${v4}`;
  const v6 = ipv6(bare);
  if (v6 !== null) {
    const carriesV4 = v6.slice(0, 5).every((g) => g === 0) && (v6[5] === 0 || v6[5] === 0xffff);
    return carriesV4 ? `4:${v6[6]! * 65536 + v6[7]!}` : `6:${v6.join(':')}`;
  }
  return bare.replace(/\.$/, '');
}

/**
 * Whether an address always reaches this machine whatever it listens on: loopback (`127.0.0.0/8`, `::1`,
 * `localhost` and names under it, RFC 6761), and `0.0.0.0/8` and `::`, which a connection takes for
 * the machine itself.
 */
function isLocalMachine(key: string): boolean {
  if (key.startsWith('4:')) {
    const first = Math.floor(Number(key.slice(2)) / 16_777_216);
    return first === 127 || first === 0;
  }
  return key === 'localhost' || key.endsWith('.localhost');
}

/**
 * Why `host:port` is the server itself, or null: a host (URL hostname, IP address or name) at one of its
 * ports that is loopback, unspecified, or one of its own addresses. Pure, so the outbound adapter asks it
 * again of every address a name resolves to.
 */
export function ownEndpointProblem(host: string, port: number, own: OwnEndpoints): string | null {
  if (!own.ports.includes(port)) return null;
  const key = addressKey(host);
  if (!isLocalMachine(key) && !own.addresses.some((a) => addressKey(a) === key)) return null;
  return `this server does not deliver to itself (${host} port ${port} is where it listens): a push there would feed its own ingestion`;
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
    const target = targetOf(url);
    if (target === null) return 'output_params.url must be an http:// or https:// URL';
    const { host } = target;
    const own = options.own && ownEndpointProblem(host, target.port, options.own());
    if (own) return `output_params.url: ${own}`;
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
