import { CURRENT_VERSION, STORE_RETRY_AFTER_S, VERSIONS, findVersion, isStoreUnavailable, parseVersionPrefix, type ApiCall, type CallAnswer, type Endpoint, type VersionId } from '@sdp/core';
import { BodyError, bodyParams, decodeUtf8, formParams, mediaTypeOf, mergeParams } from './body.ts';
import { readCredentials } from './credentials.ts';
import { requestId } from './request-ids.ts';
import { deprecationHeaders, route, segmentsOf, splitUrl, type Route } from './route.ts';
import { FixedBody } from './fixed-body.ts';
import { isoTime } from './iso-time.ts';
import { openApiDocument } from './openapi.ts';
import { CLIENT_GONE_STATUS, ClientGone, JSON_TYPE, errorResponse, type AccessEntry, type WireHandler, type WireRequest, type WireResponse } from './wire.ts';

/**
 * What the HTTP face asks of the engine, and all it asks: one call, judged and answered (`Engine.call`).
 * `endpoint` is the catalogue's entry the route resolved, for the call's `endpoint` id. An `Engine` is
 * one; so is anything that answers as the engine does (a wrapper that counts or traces calls).
 */
export interface CallAnswerer {
  /** The answer, or a promise of it: one given at once is encoded at once (`Engine.answer` gives one). */
  call(call: ApiCall, endpoint: Endpoint): CallAnswer | Promise<CallAnswer>;
}

export interface HttpOptions {
  /** The product path word read as `insight` (docs/contract.md#settings `--product`). */
  product?: string;
  /** Request bodies over this many bytes answer 413 before they are parsed (docs/contract.md#bodies-and-parameters). */
  bodyLimit?: number;
  /** Sub-APIs answering every path under a first segment, e.g. `{ _admin: operatorApi }`. */
  mounts?: Record<string, WireHandler>;
  /** Told of every answered request (the access log). */
  onAccess?: (entry: AccessEntry) => void;
  /** Told of every unexpected failure (answered 500). */
  onError?: (error: unknown) => void;
  /**
   * Told of every call the engine answered: the request, the call decoded from it (its parameters as the
   * engine judged them) and the engine's answer, before the answer is encoded (the server's request
   * journal). Keep it to storing references: it runs on every call.
   */
  onCall?: (req: WireRequest, call: ApiCall, answer: CallAnswer) => void;
  /** Adds `X-DataSift-Request-Id` (32 hex) to every API answer. Default true. */
  requestIds?: boolean;
  /**
   * Where the API is mounted when the framework passes the whole URL on (`/api` for `/api/v1.5/validate`).
   * Express's `app.use('/api', ...)` strips its prefix itself and needs none.
   */
  basePath?: string;
  /**
   * Which rate-limit fields answers carry: the five `X-RateLimit-*` (`x`, the default), the IETF httpapi
   * draft's `RateLimit-Policy` and `RateLimit` (`ietf`), or both, with the same figures.
   */
  rateLimitHeaders?: RateLimitHeaders;
  /** Injected faults (the operator's `/_admin/faults`): asked before the engine, so a fault charges nothing. */
  faults?: (target: { username: string | null; endpoint: string }) => Promise<InjectedFault | undefined> | undefined;
}

/** What an injected fault does instead of the call: answer a 5xx, or drop the connection. */
export type InjectedFault = { kind: 'answer'; status: number; retryAfter: number | null } | { kind: 'drop' };

export type RateLimitHeaders = 'x' | 'ietf' | 'both';
export const RATE_LIMIT_HEADER_STYLES: readonly RateLimitHeaders[] = ['x', 'ietf', 'both'];

export const DEFAULT_BODY_LIMIT = 4 * 1024 * 1024;


/**
 * A request the access log will hear of: what is known when it arrives, and what serving it learns (who
 * called, what it cost). `serve` hands it every answer on the way out (see `answered`).
 */
class AccessNote {
  username: string | null = null;
  cost: number | null = null;
  private readonly started = performance.now();
  constructor(
    private readonly method: string,
    private readonly path: string,
    private readonly onAccess: (entry: AccessEntry) => void,
  ) {}

  answered(status: number): void {
    this.onAccess({
      time: isoTime(Date.now()),
      method: this.method,
      path: this.path,
      status,
      ms: Math.round((performance.now() - this.started) * 100) / 100,
      username: this.username,
      cost: this.cost,
    });
  }
}

/**
 * The HTTP face's single core: decodes a wire request into an engine call, and the engine's answer into a
 * wire response. Both faces (Node listener, fetch handler) are thin translations around it.
 */
export function createApiHandler(engine: CallAnswerer, options: HttpOptions = {}): WireHandler {
  const product = options.product ?? 'insight';
  const bodyLimit = options.bodyLimit ?? DEFAULT_BODY_LIMIT;
  const mounts = new Map(Object.entries(options.mounts ?? {}));
  const requestIds = options.requestIds ?? true;
  const basePath = (options.basePath ?? '').replace(/\/+$/, '');
  const rateStyle = options.rateLimitHeaders ?? 'x';
  const onCall = options.onCall;
  const targets = new TargetCache(product, mounts);

  // The OpenAPI documents (docs/contract.md#toolbox): built from the catalogue once per version, on first ask,
  // and answered from their bytes (ETag, gzip): free to ask, so nearly free to answer (docs/openapi.md#cost).
  const documents = new Map<VersionId, FixedBody>();
  const openApi = (req: WireRequest, path: string): WireResponse | Promise<WireResponse> | undefined => {
    const m = /^\/(?:(v[^/]*)\/)?openapi\.json$/.exec(path);
    if (!m) return undefined;
    const version = m[1] === undefined ? CURRENT_VERSION : parseVersionPrefix(m[1]);
    if (version === null || !VERSIONS.some((v) => v.id === version)) return errorResponse(404, `No API version ${m[1]!.slice(1)}; versions are 1.0 to ${CURRENT_VERSION}`, { 'X-API-Version': CURRENT_VERSION });
    let document = documents.get(version);
    if (document === undefined) {
      const text = JSON.stringify(openApiDocument(version, { product, rateLimitHeaders: rateStyle }));
      // no-cache: a browser or proxy may keep the document but asks again, with its ETag, each time it is used.
      document = new FixedBody(text, { contentType: JSON_TYPE, headers: { 'X-API-Version': version, 'Access-Control-Allow-Origin': '*', 'Cache-Control': 'no-cache' } });
      documents.set(version, document);
    }
    return document.answer(req);
  };

  /**
   * One request's answer: a value when nothing on its way waited (the body held, no fault asked, the
   * engine answering at once), else a promise from the first step that answered with one. Every answer
   * leaves through `answered`, which tells the access log (`note`, null without one), and every error
   * through `failed`: the log adds no layer of its own.
   */
  function serve(req: WireRequest, path: string, query: string, note: AccessNote | null): WireResponse | Promise<WireResponse> {
    try {
      if ((req.method === 'GET' || req.method === 'HEAD') && path.endsWith('/openapi.json')) {
        const document = openApi(req, path);
        if (document) return document instanceof Promise ? settle(document.then((d) => answered(req, d, note)), req, note) : answered(req, document, note);
      }
      const r = targets.get(req.method, path);
      if (r.kind === 'mount') return settle(mounted(req, r.handler, note), req, note);
      const base = baseHeaders(r.version, requestIds);
      switch (r.kind) {
        case 'not-found':
          // Someone opening the server's root in a browser is pointed at the reference, where one is served.
          return answered(req, errorResponse(404, path === '/' && mounts.has('docs') ? `${r.message}; the API reference is at /docs` : r.message, base), note);
        case 'method-not-allowed':
          base.Allow = r.allow.join(', ');
          return answered(req, errorResponse(405, r.message, base), note);
        case 'options':
          base.Allow = r.allow.join(', ');
          base['Access-Control-Allow-Methods'] = r.allow.join(', ');
          base['Access-Control-Allow-Headers'] = 'Authorization, Auth, Content-Type, Idempotency-Key';
          base['Access-Control-Max-Age'] = '600';
          return answered(req, { status: 204, headers: base }, note);
      }
      const held = req.body;
      if (held === undefined) return settle(req.readBody(bodyLimit).then((bytes) => callWith(req, r, query, bytes, base, note)), req, note);
      return callWith(req, r, query, held.byteLength > bodyLimit ? null : held, base, note);
    } catch (error) {
      return failed(req, error, note);
    }
  }

  /** A mounted sub-API's answer, with the API's version header when it gives none. */
  async function mounted(req: WireRequest, handler: WireHandler, note: AccessNote | null): Promise<WireResponse> {
    const response = await handler(req);
    response.headers['X-API-Version'] ??= CURRENT_VERSION;
    return answered(req, response, note);
  }

  /** `serve`'s answer from a step that answered with a promise: its errors end as `serve`'s do. */
  async function settle(later: Promise<WireResponse>, req: WireRequest, note: AccessNote | null): Promise<WireResponse> {
    try {
      return await later;
    } catch (error) {
      return failed(req, error, note);
    }
  }

  /**
   * The endpoint's call from the request and its body (`null`: over the limit), through the engine, and
   * the answer encoded. Throws what `serve` answers as a failure.
   */
  function callWith(req: WireRequest, r: EndpointTarget, query: string, bytes: Uint8Array | null, base: Record<string, string>, note: AccessNote | null): WireResponse | Promise<WireResponse> {
    const endpoint = r.endpoint;
    const mediaType = mediaTypeOf(req.header('content-type'));
    // A body that cannot be read into parameters is the call's answer at step 7, charged, once the
    // credentials and the allowance have been judged as for any call (docs/contract.md#judgement-order); its bytes are
    // never parsed further.
    let unreadable: ApiCall['unreadable'];
    let params: Record<string, unknown> | undefined;
    let rawBody: string | undefined;
    if (bytes === null) {
      base.Connection = 'close';
      unreadable = { status: 413, message: `The request body is over the limit of ${bodyLimit} bytes` };
    } else {
      try {
        const text = bytes.length === 0 ? '' : decodeUtf8(bytes);
        if (endpoint.body === 'raw') {
          rawBody = text;
          params = mergeParams(formParams(query), r.pathParams);
        } else if (query === '' && !r.hasPathParams) {
          // The body's parameters alone: the parsed object is the call's own, so it needs no copy.
          params = text ? withoutProtoKey(bodyParams(text, mediaType)) : {};
        } else {
          params = mergeParams(query ? formParams(query) : {}, text ? bodyParams(text, mediaType) : {}, r.pathParams);
        }
      } catch (error) {
        if (!(error instanceof BodyError)) throw error;
        unreadable = { status: error.status, message: error.message };
      }
    }
    // Without the body's, the call still has its path's and query's parameters (an identity's limits read them).
    params ??= mergeParams(query ? formParams(query) : {}, r.pathParams);

    const authorization = req.header('authorization');
    // Several values arrive joined by commas, which no credential form contains: which one is meant is unclear.
    if (authorization !== undefined && authorization.includes(',')) return answered(req, errorResponse(400, 'Send one Authorization header, not several', base), note);
    const idempotencyKey = req.method === 'POST' || req.method === 'PUT' || req.method === 'DELETE' ? req.header('idempotency-key') : undefined;
    // Two keys arrive as one joined by ", " (Node's headers and fetch's Headers alike), and the fetch face
    // cannot tell that from one key holding a comma: used as one key, a retry would miss the call it
    // repeats. So a key has no comma, on both faces alike.
    if (idempotencyKey !== undefined && idempotencyKey.includes(',')) return answered(req, errorResponse(400, 'Send one Idempotency-Key header, not several (a key has no commas)', base), note);
    const credentials = readCredentials(authorization, req.header('auth'));
    const call: ApiCall = { version: r.version, endpoint: endpoint.id, credentials, params, mediaType };
    if (rawBody !== undefined) call.body = rawBody;
    if (unreadable) call.unreadable = unreadable;
    // A call whose body was unreadable is not recorded under its key: the retry with a body that reads executes.
    else if (idempotencyKey !== undefined) call.idempotencyKey = idempotencyKey;
    if (options.faults) {
      // No rules, no promise: the common call pays nothing for the feature.
      const asked = options.faults({ username: credentials?.username ?? null, endpoint: endpoint.id });
      if (asked !== undefined) return settle(asked.then((fault) => (fault ? answered(req, faultResponse(fault, base), note) : ask(req, r, call, base, note))), req, note);
    }
    return ask(req, r, call, base, note);
  }

  /** The call through the engine, and its answer encoded: a value when the engine answered with one. */
  function ask(req: WireRequest, r: EndpointTarget, call: ApiCall, base: Record<string, string>, note: AccessNote | null): WireResponse | Promise<WireResponse> {
    let answer = engine.call(call, r.endpoint);
    // A wrapper's thenable (another promise library, another realm's promise) is awaited as a promise is.
    if (!(answer instanceof Promise) && typeof (answer as Partial<PromiseLike<CallAnswer>>).then === 'function') answer = Promise.resolve(answer);
    if (answer instanceof Promise) {
      // One reaction for both outcomes, no async frame: a call that waits (a durable store) pays only this.
      return answer.then(
        (a) => {
          try {
            return encoded(req, r, call, a, base, note);
          } catch (error) {
            return failed(req, error, note);
          }
        },
        (error) => failed(req, error, note),
      );
    }
    return encoded(req, r, call, answer, base, note);
  }

  /** The engine's answer to `call` on the wire. */
  function encoded(req: WireRequest, r: EndpointTarget, call: ApiCall, answer: CallAnswer, base: Record<string, string>, note: AccessNote | null): WireResponse {
    if (onCall !== undefined) onCall(req, call, answer);
    if (note !== null) {
      const credentials = call.credentials;
      note.username = credentials && answer.status !== 401 ? credentials.username : null;
      note.cost = answer.rate && answer.status < 500 && answer.status !== 401 ? answer.rate.cost : null;
    }
    const common = rateStyle === 'x' ? encodeCommon(answer, base, r.head) : undefined;
    return answered(req, common ?? encode(answer, r.version, base, r.head, rateStyle, r.endpoint.allowance === 'analyze' ? 'analyze' : 'general'), note);
  }

  /** What `serve` answers for an error on the way: a client gone, the store away, or a 500 (told). */
  function failed(req: WireRequest, error: unknown, note: AccessNote | null): WireResponse {
    if (note !== null) note.username = note.cost = null;
    // Nobody is left to answer and nothing failed here: no error to tell, a 499 for the log.
    if (error instanceof ClientGone) return answered(req, errorResponse(CLIENT_GONE_STATUS, error.message, { 'X-API-Version': CURRENT_VERSION }), note);
    if (isStoreUnavailable(error)) {
      // The operator's side reaches the store outside engine.call; it answers as the API does.
      const headers = { 'X-API-Version': CURRENT_VERSION, 'Retry-After': String(STORE_RETRY_AFTER_S) };
      return answered(req, errorResponse(503, 'The data store is unavailable; nothing was changed. Retry later.', headers), note);
    }
    options.onError?.(error);
    return answered(req, errorResponse(500, 'Internal error', { 'X-API-Version': CURRENT_VERSION }), note);
  }

  /** The request's path (without `basePath`) and query string. */
  const target = (url: string): [path: string, query: string] => {
    const q = url.charCodeAt(0) === 47 /* / */ ? url.indexOf('?') : -2;
    let path: string;
    let query: string;
    if (q === -1 && url.indexOf('#') < 0) {
      // The common target: an origin-form path without a query.
      path = url;
      query = '';
    } else {
      const split = splitUrl(url);
      path = split.path;
      query = split.query;
    }
    if (basePath && (path === basePath || path.startsWith(basePath + '/'))) path = path.slice(basePath.length) || '/';
    return [path, query];
  };

  const onAccess = options.onAccess;
  // Not an async function: the answer's promise is serve's own, with no layer to wait through.
  return (req) => {
    const url = req.url;
    // The common target (an origin-form path, no query, no base path) is its own path: no pair is built.
    if (basePath === '' && url.charCodeAt(0) === 47 /* / */ && url.indexOf('?') < 0 && url.indexOf('#') < 0) {
      return serve(req, url, '', onAccess ? new AccessNote(req.method, url, onAccess) : null);
    }
    const [path, query] = target(url);
    return serve(req, path, query, onAccess ? new AccessNote(req.method, path, onAccess) : null);
  };
}

/** Every answer `serve` gives passes here: HEAD's loses its body (answered as GET would be), and the log hears of it. */
function answered(req: WireRequest, response: WireResponse, note: AccessNote | null): WireResponse {
  if (req.method === 'HEAD') delete response.body;
  note?.answered(response.status);
  return response;
}

/** A parsed body's parameters without a `__proto__` key (JSON.parse makes it an own key; no endpoint has such a parameter). */
function withoutProtoKey(params: Record<string, unknown>): Record<string, unknown> {
  if (Object.hasOwn(params, '__proto__')) delete params.__proto__;
  return params;
}

/** Where a method and path go: a mounted sub-API (by the path's first segment), or the catalogue's route. */
type Target = (Route & { hasPathParams: boolean }) | { kind: 'mount'; handler: WireHandler };
/** A target that is one of the catalogue's endpoints. */
type EndpointTarget = Extract<Target, { kind: 'endpoint' }>;

/**
 * Targets are a pure function of method and path, and most traffic repeats a few paths: each is worked
 * out once and kept, by method then path (no key string built per request), up to a bound.
 */
class TargetCache {
  private readonly byMethod = new Map<string, Map<string, Target>>();
  private size = 0;
  constructor(
    private readonly product: string,
    private readonly mounts: ReadonlyMap<string, WireHandler>,
  ) {}

  get(method: string, path: string): Target {
    let byPath = this.byMethod.get(method);
    let target = byPath?.get(path);
    if (target !== undefined) return target;
    if (this.size >= TARGETS_KEPT || this.byMethod.size >= METHODS_KEPT) {
      this.byMethod.clear();
      this.size = 0;
      byPath = undefined;
    }
    if (byPath === undefined) this.byMethod.set(method, (byPath = new Map()));
    const first = segmentsOf(path)[0];
    const mount = first !== undefined ? this.mounts.get(first) : undefined;
    if (mount) target = { kind: 'mount', handler: mount };
    else {
      const r = route(method, path, this.product);
      target = { ...r, hasPathParams: r.kind === 'endpoint' && Object.keys(r.pathParams).length > 0 };
    }
    byPath.set(path, target);
    this.size++;
    return target;
  }
}

const TARGETS_KEPT = 4096;
const METHODS_KEPT = 16;

function faultResponse(fault: InjectedFault, headers: Record<string, string>): WireResponse {
  if (fault.kind === 'drop') return { status: 0, headers, drop: true };
  if (fault.retryAfter !== null) headers['Retry-After'] = String(fault.retryAfter);
  return errorResponse(fault.status, `Injected fault: ${fault.status} (the operator's /_admin/faults); nothing was charged`, headers);
}

/** `Deprecation` and `Sunset` of a version whose deprecation is announced, worked out once per announcement. */
const deprecations = new Map<VersionId, { of: object; headers: Record<string, string> }>();
function deprecationOf(version: VersionId): Record<string, string> | undefined {
  const announced = findVersion(version).deprecation;
  if (announced === undefined) return undefined;
  let kept = deprecations.get(version);
  if (kept?.of !== announced) deprecations.set(version, (kept = { of: announced, headers: deprecationHeaders(version) }));
  return kept.headers;
}

/**
 * The headers of every API answer: the version and the CORS origin always, then the request id when the
 * server gives one and the deprecation pair for a retired version, added only when they apply.
 */
function baseHeaders(version: VersionId, withRequestId: boolean): Record<string, string> {
  const h: Record<string, string> = withRequestId
    ? { 'X-API-Version': version, 'Access-Control-Allow-Origin': '*', 'X-DataSift-Request-Id': requestId() }
    : { 'X-API-Version': version, 'Access-Control-Allow-Origin': '*' };
  const deprecation = deprecationOf(version);
  if (deprecation !== undefined) {
    h.Deprecation = deprecation.Deprecation!;
    h.Sunset = deprecation.Sunset!;
  }
  return h;
}

/**
 * Status, the five rate-limit figures (docs/contract.md#judgement-order), the answer's own headers, and the JSON body, added
 * to `headers` in place. `x-datasift-*` names go out lowercase: one client matches them only in that
 * exact case (docs/clients.md#response-headers).
 */
export function encode(answer: CallAnswer, version: VersionId, headers: Record<string, string>, head = false, style: RateLimitHeaders = 'x', policy = 'general'): WireResponse {
  const rate = answer.rate;
  if (rate && style !== 'x') {
    // IETF httpapi draft: the quota and its window (one hour) as a policy; what remains and the seconds until it resets.
    headers['RateLimit-Policy'] = `"${policy}";q=${rate.limit};w=3600`;
    headers.RateLimit = `"${policy}";r=${rate.remaining};t=${rate.resetTtl}`;
  }
  if (rate && style !== 'ietf') {
    headers['X-RateLimit-Limit'] = limitText.of(rate.limit);
    headers['X-RateLimit-Remaining'] = String(rate.remaining);
    headers['X-RateLimit-Cost'] = costText.of(rate.cost);
    headers['X-RateLimit-Reset'] = resetText.of(rate.reset);
    headers['X-RateLimit-Reset-Ttl'] = resetTtlText.of(rate.resetTtl);
  }
  if (answer.headers) {
    for (const name of Object.keys(answer.headers)) {
      headers[/^x-datasift-/i.test(name) ? name.toLowerCase() : name] = answer.headers[name]!;
    }
  }
  headers['X-API-Version'] = version;
  if (answer.status === 204) return { status: 204, headers };
  headers['Content-Type'] = JSON_TYPE;
  // A string body is already encoded (a pull page in json_new_line: one JSON object per line).
  const body = typeof answer.body === 'string' ? answer.body : flatJson(answer.body ?? {});
  return head ? { status: answer.status, headers } : { status: answer.status, headers, body };
}

/**
 * `encode`'s answer for the common call (a body and the five `X-RateLimit-*` figures, no headers of its
 * own, on `base` as `baseHeaders` made it with a request id and no deprecation), with every header in one
 * object literal, in `encode`'s order: `encode` adds nine headers one at a time to the three of `base`,
 * and each added name moves the object to another shape and, every few names, to a larger backing
 * store. `undefined` for any other answer, which `encode` spells.
 */
function encodeCommon(answer: CallAnswer, base: Record<string, string>, head: boolean): WireResponse | undefined {
  const rate = answer.rate;
  const requestId = base['X-DataSift-Request-Id'];
  if (rate === undefined || answer.headers !== undefined || answer.status === 204 || requestId === undefined || base.Deprecation !== undefined || base.Connection !== undefined) return undefined;
  const headers: Record<string, string> = {
    'X-API-Version': base['X-API-Version']!,
    'Access-Control-Allow-Origin': '*',
    'X-DataSift-Request-Id': requestId,
    'X-RateLimit-Limit': limitText.of(rate.limit),
    'X-RateLimit-Remaining': String(rate.remaining),
    'X-RateLimit-Cost': costText.of(rate.cost),
    'X-RateLimit-Reset': resetText.of(rate.reset),
    'X-RateLimit-Reset-Ttl': resetTtlText.of(rate.resetTtl),
    'Content-Type': JSON_TYPE,
  };
  if (head) return { status: answer.status, headers };
  return { status: answer.status, headers, body: typeof answer.body === 'string' ? answer.body : flatJson(answer.body ?? {}) };
}

/**
 * The text of one figure, kept while the figure stays the same: an account's limit, a call's cost and its
 * window's reset repeat from call to call, and a number spelled anew (a large one is no small integer
 * V8 keeps the text of) costs more than the comparison.
 */
class FigureText {
  private n = NaN;
  private text = 'NaN';
  of(n: number): string {
    if (n !== this.n) {
      this.n = n;
      this.text = String(n);
    }
    return this.text;
  }
}
const limitText = new FigureText();
const costText = new FigureText();
const resetText = new FigureText();
const resetTtlText = new FigureText();

/** A string that JSON text holds as it is between quotes: no quote, backslash, control character or lone surrogate half. */
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;

/**
 * `JSON.stringify(body)`, spelled by hand for the common answer (validate's, compile's): an object whose
 * own keys and string values need no escaping, with finite numbers, booleans or null beside them. Any
 * other body (nested, escaped, `toJSON`, undefined values) is left to `JSON.stringify`.
 */
export function flatJson(body: unknown): string {
  if (typeof body !== 'object' || body === null || Array.isArray(body) || Object.getPrototypeOf(body) !== Object.prototype) return JSON.stringify(body);
  let out = '{';
  for (const key in body) {
    if (!Object.hasOwn(body, key) || NEEDS_ESCAPE.test(key)) return JSON.stringify(body);
    const v = (body as Record<string, unknown>)[key];
    let text: string;
    if (typeof v === 'string') {
      if (NEEDS_ESCAPE.test(v)) return JSON.stringify(body);
      text = '"' + v + '"';
    } else if (typeof v === 'number' && Number.isFinite(v)) text = String(v);
    else if (typeof v === 'boolean') text = v ? 'true' : 'false';
    else if (v === null) text = 'null';
    else return JSON.stringify(body);
    out += (out.length === 1 ? '"' : ',"') + key + '":' + text;
  }
  return out + '}';
}
