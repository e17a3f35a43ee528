import {
  CURRENT_VERSION,
  findVersion,
  looksLikeVersion,
  parseVersionPrefix,
  pickMethod,
  resolvePath,
  type Endpoint,
  type VersionId,
} from '@sdp/core';

/**
 * Where a request goes, read from its method and path alone (docs/contract.md#judgement-order steps 1 to 3): the version
 * prefix, the product word, the catalogue's path forms, then the method. No endpoint is named here: the
 * catalogue is the only list.
 */
export type Route =
  | { kind: 'endpoint'; version: VersionId; endpoint: Endpoint; pathParams: Record<string, string>; head: boolean }
  | { kind: 'options'; version: VersionId; allow: string[] }
  | { kind: 'not-found'; version: VersionId; message: string }
  | { kind: 'method-not-allowed'; version: VersionId; allow: string[]; message: string };

export function splitUrl(url: string): { path: string; query: string } {
  let target = url;
  if (!target.startsWith('/')) {
    // Absolute-form targets (`http://host/path`) carry the path after the authority.
    const m = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*([^#]*)/i.exec(target);
    target = m ? m[1] || '/' : '';
  }
  const hash = target.indexOf('#');
  if (hash >= 0) target = target.slice(0, hash);
  const q = target.indexOf('?');
  return q < 0 ? { path: target, query: '' } : { path: target.slice(0, q), query: target.slice(q + 1) };
}

export function segmentsOf(path: string): string[] {
  return path.split('/').filter((s) => s.length > 0);
}

export function route(method: string, path: string, product: string): Route {
  const segs = segmentsOf(path);
  let version: VersionId = '1.0';
  if (segs.length > 0 && looksLikeVersion(segs[0]!)) {
    const v = parseVersionPrefix(segs[0]!);
    if (v === null) return { kind: 'not-found', version: CURRENT_VERSION, message: `No API version ${segs[0]!.slice(1)}; versions are 1.0 to ${CURRENT_VERSION}` };
    version = v;
    segs.shift();
  }
  if (segs.length > 0 && product !== 'insight' && safeDecode(segs[0]!) === product) segs[0] = 'insight';
  const match = resolvePath(version, '/' + segs.join('/'));
  if (!match) return { kind: 'not-found', version, message: `No endpoint at ${truncate(path)} in API ${version}` };
  if (method === 'OPTIONS') return { kind: 'options', version, allow: withExtras((pickMethod(match, '') as { allow: string[] }).allow) };
  // Only the methods the catalogue lists (docs/clients.md#methods-per-endpoint): HEAD is no GET here, so it is never charged.
  const head = false;
  const picked = pickMethod(match, method);
  if ('allow' in picked) {
    return { kind: 'method-not-allowed', version, allow: withExtras(picked.allow), message: `Method ${truncate(method)} not allowed for this endpoint; allowed: ${picked.allow.join(', ')}` };
  }
  return { kind: 'endpoint', version, endpoint: picked, pathParams: match.params, head };
}

/** OPTIONS (the browser's preflight, never charged) is answered everywhere. */
function withExtras(allow: string[]): string[] {
  return [...allow, 'OPTIONS'];
}

function safeDecode(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

function truncate(s: string): string {
  return s.length > 200 ? `${s.slice(0, 200)}...` : s;
}

/** `Deprecation` and `Sunset` for a version whose deprecation is announced (docs/contract.md#versions). */
export function deprecationHeaders(version: VersionId): Record<string, string> {
  const d = findVersion(version).deprecation;
  if (!d) return {};
  return {
    Deprecation: `@${Math.floor(Date.parse(d.announced) / 1000)}`,
    Sunset: new Date(Date.parse(d.sunset)).toUTCString(),
  };
}
