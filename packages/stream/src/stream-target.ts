import type { IncomingMessage } from 'node:http';
import type { StreamCredentials } from '@sdp/core/internal';
import { readCredentials } from '@sdp/http';

export const HASH = /^[0-9a-f]{32}$/i;

/** What a request asks of the stream, read from its method, path and headers. */
export interface StreamTarget {
  /** `single`: `/<hash>`; `multi`: `/multi` (and a WebSocket's `/`); `duplex`: `GET /` with a chunked body. */
  kind: 'single' | 'multi' | 'duplex';
  hash?: string;
  /** `hashes=` of the query: the connection's first subscriptions. */
  hashes: string[];
  credentials: StreamCredentials | undefined;
}

/** The stream's reading of a request, or `undefined` when it is not the stream's (the API's, then). */
export function streamTarget(req: IncomingMessage, upgrade: boolean): StreamTarget | undefined {
  // Every API request on a shared port passes here first: the common one (not a GET) leaves at once.
  if (req.method !== 'GET') return undefined;
  const header = (name: string) => {
    const v = req.headers[name];
    return Array.isArray(v) ? v[0] : v;
  };
  return readTarget(req.method, req.url ?? '/', header, upgrade);
}

/**
 * The stream's reading of a fetch `Request` (single-hash and multi HTTP streams only: the duplex `GET /`
 * needs a request body that streams in while the answer streams out, which fetch runtimes do not give).
 */
export function fetchStreamTarget(request: Request): StreamTarget | undefined {
  const url = new URL(request.url);
  const target = readTarget(request.method, url.pathname + url.search, (name) => (name === 'transfer-encoding' ? undefined : request.headers.get(name) ?? undefined), false);
  return target?.kind === 'duplex' ? undefined : target;
}

function readTarget(method: string | undefined, rawUrl: string, header: (name: string) => string | undefined, upgrade: boolean): StreamTarget | undefined {
  if (method !== 'GET') return undefined;
  const url = parseTarget(rawUrl);
  if (!url) return undefined;
  const path = url.pathname;
  let kind: StreamTarget['kind'];
  let hash: string | undefined;
  if (path === '/multi' || path === '/multi/') kind = 'multi';
  else if (path === '/' || path === '') {
    if (upgrade) kind = 'multi';
    else if (/chunked/i.test(header('transfer-encoding') ?? '')) kind = 'duplex';
    else return undefined;
  } else {
    const segment = path.slice(1).replace(/\/$/, '');
    if (!HASH.test(segment)) return undefined;
    kind = 'single';
    hash = segment.toLowerCase();
  }
  const list = url.searchParams.get('hashes');
  const hashes = list ? [...new Set(list.split(',').map((h) => h.trim().toLowerCase()).filter((h) => h.length > 0))] : [];
  const username = url.searchParams.get('username');
  const apiKey = url.searchParams.get('api_key');
  const credentials = username && apiKey ? { username, apiKey } : readCredentials(header('authorization'), header('auth'));
  return { kind, ...(hash ? { hash } : {}), hashes, credentials };
}

/**
 * The request target as a URL, or `undefined` when it is none: a target that starts with `//` is a path
 * of empty segments, not a host (parsed against a base it would name one, and `//` alone throws, which in
 * a listener of node:http is the process's end); an absolute-form target (`http://host/path`) keeps its path.
 */
function parseTarget(rawUrl: string): URL | undefined {
  try {
    return rawUrl.startsWith('/') ? new URL(`http://stream.invalid${rawUrl}`) : new URL(rawUrl, 'http://stream.invalid');
  } catch {
    return undefined;
  }
}
