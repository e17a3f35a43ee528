/**
 * Reading a request's parameters from its body and query string as real clients send them (docs/clients.md#how-parameters-travel): a JSON object, a urlencoded form, or nothing. Values are passed on raw; the core's `Params` reads
 * the encodings (numbers as strings, JSON text, flattened keys, comma lists).
 */
export class BodyError extends Error {
  constructor(
    readonly status: 400 | 415,
    message: string,
  ) {
    super(message);
  }
}

/** Deeper JSON than this is refused before parsing: no real request nests so far, and deep values cost stack. */
export const MAX_JSON_DEPTH = 64;

const utf8 = new TextDecoder('utf-8', { fatal: true });

export function decodeUtf8(bytes: Uint8Array): string {
  try {
    return utf8.decode(bytes);
  } catch {
    throw new BodyError(400, 'The request body is not valid UTF-8');
  }
}

/** The media type without parameters, lowercased (`application/json`). */
export function mediaTypeOf(contentType: string | undefined): string | undefined {
  if (contentType === undefined) return undefined;
  // Clients send the same Content-Type over and over: the last one read is kept.
  if (contentType === lastContentType) return lastMediaType;
  const type = contentType.split(';', 1)[0]!.trim().toLowerCase();
  lastContentType = contentType;
  lastMediaType = type.length > 0 ? type : undefined;
  return lastMediaType;
}

let lastContentType: string | undefined;
let lastMediaType: string | undefined;

type Kind = 'json' | 'form';

function kindOf(mediaType: string | undefined, text: string): Kind | null {
  if (mediaType === 'application/json' || (mediaType !== undefined && mediaType.endsWith('+json'))) return 'json';
  if (mediaType === 'application/x-www-form-urlencoded') return 'form';
  if (mediaType === undefined || mediaType === 'text/plain' || mediaType === 'application/octet-stream') {
    const first = /\S/.exec(text)?.[0];
    return first === '{' || first === '[' ? 'json' : 'form';
  }
  return null;
}

/** The parameters a body carries; `{}` for an empty body. */
export function bodyParams(text: string, mediaType: string | undefined): Record<string, unknown> {
  if (text.trim().length === 0) return {};
  const kind = kindOf(mediaType, text);
  if (kind === null) {
    throw new BodyError(415, `Unsupported media type ${mediaType}; send parameters as application/json or application/x-www-form-urlencoded`);
  }
  if (kind === 'form') return formParams(text);
  // Nesting past the bound takes more brackets than a shorter text holds.
  if (text.length > MAX_JSON_DEPTH) checkDepth(text);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new BodyError(400, 'The request body is not valid JSON');
  }
  // PHP's json_encode writes an empty parameter array as `[]` (docs/clients.md#how-parameters-travel: that client always sends
  // a JSON body): no parameters, as `{}` is.
  if (Array.isArray(value) && value.length === 0) return {};
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new BodyError(400, 'The request body must be a JSON object of parameters');
  }
  return value as Record<string, unknown>;
}

/** Query strings and form bodies: a key sent several times becomes a list. */
export function formParams(text: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of new URLSearchParams(text)) {
    if (key === '__proto__') continue;
    // Own keys only: `?constructor=x` must not find Object's constructor as an earlier value.
    const prior = Object.hasOwn(out, key) ? out[key] : undefined;
    if (prior === undefined) out[key] = value;
    else if (Array.isArray(prior)) prior.push(value);
    else out[key] = [prior, value];
  }
  return out;
}

/** Counts bracket depth outside strings; refuses past MAX_JSON_DEPTH without building anything. */
function checkDepth(text: string): void {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92 /* \ */) i++;
      else if (c === 34 /* " */) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 || c === 91) {
      if (++depth > MAX_JSON_DEPTH) throw new BodyError(400, `The request body nests deeper than ${MAX_JSON_DEPTH} levels`);
    } else if (c === 125 || c === 93) depth--;
  }
}

/** Query < body < path: the path's own parameters always win over echoes of them (docs/clients.md#how-parameters-travel). */
export function mergeParams(...sources: Record<string, unknown>[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const source of sources) {
    for (const key of Object.keys(source)) {
      if (key === '__proto__') continue;
      out[key] = source[key];
    }
  }
  return out;
}
