import type { ApiCall, CallAnswer } from '@sdp/core';
import { jsonResponse, readCredentials, type WireHandler, type WireRequest, type WireResponse } from '@sdp/http';
import type { OperatorRoute } from './operator-api.ts';
import { shownParams } from './journal-params.ts';

/** How many requests the journal keeps: the newest, each overwriting the oldest. */
export const JOURNAL_SIZE = 1000;
/** A path, or a credentials header, kept at most this long: a journal of 1,000 stays under a few MB. */
export const JOURNAL_TEXT_MAX = 512;
/**
 * A call's parameters are kept as decoded (a reference, nothing copied) when its URL and body came to at
 * most this many bytes; a larger call's are kept as a copy cut to this many characters, made at once so
 * the journal never holds a large body alive. Each entry's parameters are listed within the same bound.
 */
export const JOURNAL_PARAMS_MAX = 2048;

/** One slot of the ring, overwritten in place: the request as it came, the answer as it went. */
interface Slot {
  /** The request's number since the journal was last emptied, from 1. */
  n: number;
  at: number;
  method: string;
  url: string;
  authorization: string | undefined;
  auth: string | undefined;
  status: number;
  headers: Record<string, string> | undefined;
  ms: number;
  /** The call's parameters (the engine's own object, or a cut copy), undefined when no call was made. */
  params: Record<string, unknown> | undefined;
  /** Whether `params` is already a cut copy. */
  cut: boolean;
  /** The positions the call's events took, first to last; 0 when it wrote none. */
  first: number;
  last: number;
}

/** A journal entry as `GET /_admin/requests` lists it. */
export interface JournalEntry {
  /** The request's number since the journal was last emptied (`DELETE`), from 1: `seen` at the newest. */
  n: number;
  time: string;
  method: string;
  path: string;
  /** The API version that answered (its `X-API-Version`); null for the operator's own paths. */
  version: string | null;
  account: string | null;
  status: number;
  cost: number | null;
  remaining: number | null;
  ms: number;
  /** The parameters the engine judged (query, body and path merged, credentials masked); null: no call. */
  params: Record<string, unknown> | null;
  /** True when `params` was cut to `JOURNAL_PARAMS_MAX` characters. */
  paramsCut: boolean;
  /** The global positions of the events the call wrote, one atomic append: null when it wrote none. */
  positions: { first: number; last: number } | null;
}

/** What `GET /_admin/requests` narrows the list by; every one given must match. */
export interface JournalFilter {
  username?: string;
  /** A path prefix: `/v1.5/push` finds every push call. */
  path?: string;
  status?: (status: number) => boolean;
  /** Epoch ms: entries noted at or after it. */
  since?: number;
}

const capped = (text: string | undefined): string | undefined => (text !== undefined && text.length > JOURNAL_TEXT_MAX ? text.slice(0, JOURNAL_TEXT_MAX) : text);

/**
 * The last requests the API port answered, for the operator (`GET /_admin/requests`), as a stand-in
 * server's users ask "what did my client just send?". Noting a request only fills a preallocated slot
 * with references the request and answer already hold; the account, the charge, the path and the
 * parameters are read out of them when someone lists the journal, so the request path pays no parsing or
 * serialization. The engine tells it the positions a call wrote (`wrote`) and the HTTP face the call a
 * request became (`called`); each is held in a small ring until it is matched, by identity, to its call and
 * then to its request, which come a few turns later (a WeakMap per request cost microseconds in its
 * collector's work).
 */
export class RequestJournal {
  private readonly slots: Slot[];
  private next = 0;
  private seen = 0;
  /** Calls that wrote, with their positions, until the HTTP face tells of them. */
  private readonly written = new InFlight<ApiCall>();
  /** Requests that became calls, with the call's parameters and positions, until they are answered. */
  private readonly calls = new InFlight<WireRequest>();

  constructor(readonly size = JOURNAL_SIZE) {
    this.slots = Array.from({ length: size }, () => ({ n: 0, at: 0, method: '', url: '', authorization: undefined, auth: undefined, status: 0, headers: undefined, ms: 0, params: undefined, cut: false, first: 0, last: 0 }));
  }

  /** `EngineOptions.onCallWritten`: the positions a call's events took. */
  readonly wrote = (call: ApiCall, first: number, last: number): void => {
    this.written.add(call, undefined, first, last);
  };

  /** `HttpOptions.onCall`: the call a request became, its parameters as the engine judged them. */
  readonly called = (req: WireRequest, call: ApiCall, _answer: CallAnswer): void => {
    const w = this.written.take(call);
    this.calls.add(req, call.params ?? {}, w < 0 ? 0 : this.written.first[w]!, w < 0 ? 0 : this.written.last[w]!);
  };

  /** The handler with every answer noted; the answer itself is passed on untouched. */
  wrap(handler: WireHandler): WireHandler {
    return (req) => {
      const started = performance.now();
      const answered = handler(req);
      if (!(answered instanceof Promise)) {
        this.note(req, answered, performance.now() - started);
        return answered;
      }
      return answered.then((res) => {
        this.note(req, res, performance.now() - started);
        return res;
      });
    };
  }

  note(req: WireRequest, res: WireResponse, ms: number): void {
    // The operator's successful reads stay out: the console polls them every second, and they would push
    // the API's calls out of the ring. So does the clearing of the journal, which leaves it empty. Refused
    // ones, and every other change, are noted.
    if (res.status < 400 && isOperatorPath(req.url) && (req.method === 'GET' || (req.method === 'DELETE' && req.url.startsWith('/_admin/requests')))) return;
    const slot = this.slots[this.next]!;
    slot.at = Date.now();
    slot.method = req.method;
    slot.url = capped(req.url)!;
    slot.authorization = capped(req.header('authorization'));
    slot.auth = capped(req.header('auth'));
    slot.status = res.status;
    slot.headers = res.headers;
    slot.ms = ms;
    const c = this.calls.take(req);
    if (c < 0) {
      slot.params = undefined;
      slot.cut = false;
      slot.first = slot.last = 0;
    } else {
      const params = this.calls.params[c]!;
      this.calls.params[c] = undefined;
      slot.first = this.calls.first[c]!;
      slot.last = this.calls.last[c]!;
      // A large call's parameters are cut now, not held: the bound is on what the journal keeps alive.
      slot.cut = wireBytes(req) > JOURNAL_PARAMS_MAX;
      slot.params = slot.cut ? shownParams(params, JOURNAL_PARAMS_MAX).params : params;
    }
    this.next = (this.next + 1) % this.size;
    slot.n = ++this.seen;
  }

  /** Newest first, at most `limit` of those the filter lets through; how many requests were noted in all. */
  list(limit = this.size, filter: JournalFilter = {}): { requests: JournalEntry[]; seen: number; kept: number } {
    const held = Math.min(this.seen, this.size);
    const requests: JournalEntry[] = [];
    for (let i = 1; i <= held && requests.length < limit; i++) {
      const slot = this.slots[(this.next - i + this.size) % this.size]!;
      // Newest first, so the first one older than `since` ends the walk: the rest are older still.
      if (filter.since !== undefined && slot.at < filter.since) break;
      if (filter.status !== undefined && !filter.status(slot.status)) continue;
      const entry = entryOf(slot);
      if (filter.path !== undefined && !entry.path.startsWith(filter.path)) continue;
      if (filter.username !== undefined && entry.account !== filter.username) continue;
      requests.push(entry);
    }
    return { requests, seen: this.seen, kept: this.size };
  }

  forget(): void {
    for (const slot of this.slots) Object.assign(slot, { authorization: undefined, auth: undefined, headers: undefined, url: '', params: undefined, cut: false, first: 0, last: 0 });
    this.next = 0;
    this.seen = 0;
  }
}

function entryOf(slot: Slot): JournalEntry {
  const q = slot.url.indexOf('?');
  // The query stays out: it may hold an api_key (the stream's clients send one there).
  const path = q < 0 ? slot.url : slot.url.slice(0, q);
  const query = q < 0 ? undefined : new URLSearchParams(slot.url.slice(q + 1));
  const account = readCredentials(slot.authorization, slot.auth)?.username ?? query?.get('username') ?? null;
  const shown = slot.params === undefined ? undefined : shownParams(slot.params, JOURNAL_PARAMS_MAX);
  return {
    n: slot.n,
    time: new Date(slot.at).toISOString(),
    method: slot.method,
    path,
    version: slot.headers?.['X-API-Version'] ?? null,
    account,
    status: slot.status,
    cost: figure(slot.headers, 'X-RateLimit-Cost'),
    remaining: figure(slot.headers, 'X-RateLimit-Remaining') ?? ietfRemaining(slot.headers),
    ms: Math.round(slot.ms * 100) / 100,
    params: shown ? shown.params : null,
    paramsCut: slot.cut || (shown?.cut ?? false),
    positions: slot.first > 0 ? { first: slot.first, last: slot.last } : null,
  };
}

/** Calls answering at once that the ring keeps apart: a group commit answers many together. */
export const IN_FLIGHT = 256;

/**
 * What was told of a call and is not yet matched, in a ring of `IN_FLIGHT`: found again by the identity of
 * its key, newest first, and taken out. Live entries are counted, so a search stops once it has looked at
 * every one (one or two when calls come one at a time); a key never matched (a stream action's call,
 * which no request carries) is overwritten in time.
 */
class InFlight<K extends object> {
  private readonly keys: (K | undefined)[] = new Array(IN_FLIGHT).fill(undefined);
  readonly params: (Record<string, unknown> | undefined)[] = new Array(IN_FLIGHT).fill(undefined);
  readonly first = new Float64Array(IN_FLIGHT);
  readonly last = new Float64Array(IN_FLIGHT);
  private next = 0;
  private live = 0;

  add(key: K, params: Record<string, unknown> | undefined, first: number, last: number): void {
    const i = this.next;
    if (this.keys[i] === undefined) this.live++;
    this.keys[i] = key;
    this.params[i] = params;
    this.first[i] = first;
    this.last[i] = last;
    this.next = (i + 1) % IN_FLIGHT;
  }

  /**
   * The index of `key`'s entry, now free (its fields readable until the next `add`; the caller lets go of
   * its parameters); -1 when none.
   */
  take(key: K): number {
    let looked = 0;
    for (let k = 1; k <= IN_FLIGHT && looked < this.live; k++) {
      const i = (this.next - k + IN_FLIGHT) % IN_FLIGHT;
      const held = this.keys[i];
      if (held === undefined) continue;
      if (held === key) {
        this.keys[i] = undefined;
        this.live--;
        return i;
      }
      looked++;
    }
    return -1;
  }
}

/** `/_admin…` and `/_console…`: the operator API and the console's files. */
function isOperatorPath(url: string): boolean {
  return url.charCodeAt(1) === 95 /* _ */ && (url.startsWith('/_admin') || url.startsWith('/_console'));
}

/** The bytes a request's parameters came in: its target and its body (unknown length: unbounded). */
function wireBytes(req: WireRequest): number {
  if (req.body !== undefined) return req.url.length + req.body.byteLength;
  const length = req.header('content-length');
  if (length !== undefined) return Number.isSafeInteger(Number(length)) ? req.url.length + Number(length) : Infinity;
  return req.header('transfer-encoding') === undefined ? req.url.length : Infinity;
}

function figure(headers: Record<string, string> | undefined, name: string): number | null {
  const value = headers?.[name];
  return value === undefined || !/^-?\d+$/.test(value) ? null : Number(value);
}

/** `RateLimit: "general";r=185;t=3540`, where only the IETF fields are sent. */
function ietfRemaining(headers: Record<string, string> | undefined): number | null {
  const m = headers?.RateLimit ? /;r=(\d+)/.exec(headers.RateLimit) : null;
  return m ? Number(m[1]) : null;
}

/** `?status=404` one status, `?status=4xx` a class. */
function statusFilter(raw: string): ((status: number) => boolean) | undefined {
  if (/^\d{3}$/.test(raw)) return (status) => status === Number(raw);
  if (/^[1-5]xx$/i.test(raw)) return (status) => Math.floor(status / 100) === Number(raw[0]);
  return undefined;
}

/** `?since=` as epoch ms or an ISO 8601 time; NaN when neither. */
function sinceMs(raw: string): number {
  if (/^\d+$/.test(raw)) return Number(raw);
  return /^\d{4}-\d\d-\d\d/.test(raw) ? Date.parse(raw) : NaN;
}

/** `GET /_admin/requests?limit=N&username=&path=&status=&since=`: the journal, newest first. */
export function journalRoutes(journal: RequestJournal): OperatorRoute[] {
  return [
    {
      method: 'GET',
      path: ['requests'],
      run: async ({ query }) => {
        const raw = query.get('limit');
        if (raw !== null && !/^\d+$/.test(raw)) return jsonResponse(400, { error: 'limit must be a whole number, 0 or more' });
        const filter: JournalFilter = {};
        const username = query.get('username');
        if (username !== null) filter.username = username;
        const path = query.get('path');
        if (path !== null) filter.path = path;
        const status = query.get('status');
        if (status !== null) {
          const matches = statusFilter(status);
          if (matches === undefined) return jsonResponse(400, { error: 'status must be a status code (404) or a class (4xx)' });
          filter.status = matches;
        }
        const since = query.get('since');
        if (since !== null) {
          filter.since = sinceMs(since);
          if (Number.isNaN(filter.since)) return jsonResponse(400, { error: 'since must be a time in epoch milliseconds or ISO 8601' });
        }
        return jsonResponse(200, journal.list(raw === null ? journal.size : Number(raw), filter));
      },
    },
    {
      method: 'DELETE',
      path: ['requests'],
      run: async () => {
        journal.forget();
        return { status: 204, headers: {} };
      },
    },
  ];
}
