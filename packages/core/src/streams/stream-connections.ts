import type { Decider, DomainEvent } from '../kernel/decider.ts';
import { BadRequest, DomainError, NotFound } from '../calls/errors.ts';
import { own } from '../calls/input-limits.ts';
import { streamNamer } from '../kernel/stream-names.ts';
import { bucketDelete, bucketEntries, bucketGet, bucketSet, recordWith, recordWithout, type Buckets } from './buckets.ts';
import type { MatchedEvent } from './matched-relay.ts';

/**
 * The stream product's connections of one account and the hashes each is subscribed to (docs/contract.md#the-stream),
 * with the interactions delivered on them, as counts. Its version orders subscriptions and matches: a
 * match is decided on a version of this aggregate (`seq`, guarded in the match's write), and a
 * subscription receives exactly the matches decided at or after its own version, in every process that
 * follows the log. The matched interactions themselves are relayed apart (`matched-relay.ts`), and not kept.
 */
export type StreamTransport = 'websocket' | 'http' | 'http-duplex';

/** Licences by type: `interaction` counts every interaction delivered, each source its own. */
export type Licences = Record<string, number>;

export interface StreamSubscription {
  /** Unix ms it began. */
  since: number;
  /** The stream's `seq` after the event that began it: matches with a greater `seq` are its own. */
  seq: number;
}

export interface StreamConnection {
  transport: StreamTransport;
  openedAt: number;
  /** Subscribed hashes. */
  hashes: Buckets<StreamSubscription>;
  /** How many hashes are subscribed (`hashes` has this many keys). */
  count: number;
  /** The process holding it (`HostLiveness`): absent on connections opened before hosts were recorded. */
  host?: string;
}

/** An ended subscription's time, kept for `/usage` (whose longest period is a day). */
export interface EndedSubscription {
  hash: string;
  from: number;
  to: number;
}

/**
 * Up to `ENDED_CHUNK` ended subscriptions in the order they ended, with the earliest end among them. A
 * client that reconnects every minute ends thousands of subscriptions a day, and a state is never
 * changed in place: one list made every close copy the day's ends. In chunks a close copies the last
 * chunk and the list of chunks, and a prune drops the chunks that are wholly past and cuts only those
 * whose `earliest` says something in them is.
 */
export interface EndedChunk {
  earliest: number;
  ends: EndedSubscription[];
}

/** Ended subscriptions a chunk holds at most. */
export const ENDED_CHUNK = 128;

export interface StreamConnections {
  /** Events folded so far: the order of subscriptions and matches (the stream's version). */
  seq: number;
  connections: Record<string, StreamConnection>;
  /** Live subscriptions by hash: how many connections hold each (what is matched, and counted). */
  live: Buckets<number>;
  /** Ended subscriptions, oldest first, in chunks (`endedSubscriptions` reads them as one list). */
  ended: EndedChunk[];
  /** Interactions delivered by hash, then by minute (Unix ms of its start), then by licence type. */
  delivered: Record<string, Record<string, Licences>>;
  /**
   * When connections were opened in the last hour, oldest first (absent in states folded by builds
   * before opens were bounded): each open and close writes to the log whether or not it subscribes
   * anything, so their number an hour is bounded (`OPENS_PER_PLACE_PER_HOUR`).
   */
  opens?: number[];
}

/** Delivered interactions to record: by minute (Unix ms of its start), then by hash, then by licence type. */
export type DeliveredCounts = Record<string, Record<string, Licences>>;

export type StreamEvent =
  | DomainEvent<'StreamConnected', { connection: string; transport: StreamTransport; at: number; host?: string }>
  | DomainEvent<'StreamSubscribed', { connection: string; hash: string; at: number }>
  | DomainEvent<'StreamUnsubscribed', { connection: string; hash: string; at: number }>
  | DomainEvent<'StreamDisconnected', { connection: string; at: number; reason: string }>
  | DomainEvent<'StreamInteractionsDelivered', { at: number; minutes: DeliveredCounts }>
  /**
   * Written here by builds before deliveries were counted (licences then counted at match time, for every
   * live subscription): still folded so that their usage reads as it did. Matches now go to the relay.
   */
  | MatchedEvent;

export type StreamCommand =
  | { type: 'OpenStreamConnection'; connection: string; transport: StreamTransport; at: number; limit: number; host?: string }
  | { type: 'SubscribeStream'; connection: string; hash: string; at: number }
  | { type: 'UnsubscribeStream'; connection: string; hash: string; at: number }
  | { type: 'CloseStreamConnection'; connection: string; at: number; reason: string }
  /**
   * `host` is gone (its liveness lapsed): every connection it held ends as it was last known alive
   * (`aliveAt`, or later for one opened after it), so its seconds stop there.
   */
  | { type: 'EndLostHostConnections'; host: string; aliveAt: number; reason: string }
  | { type: 'RecordStreamDeliveries'; at: number; minutes: DeliveredCounts };

export const streamConnectionsStream: (username: string) => string = streamNamer('streams:');

/** At most this many hashes on one connection (the original's documented multi-stream limit). */
export const MAX_HASHES_PER_CONNECTION = 5_000;

/** Usage is kept this long after a subscription ends or an interaction is delivered (`/usage` reads a day). */
export const STREAM_USAGE_KEPT_MS = 25 * 3_600_000;

const MINUTE = 60_000;

/**
 * Opens an hour allowed for each place of `stream_connections`: a client reconnecting every five
 * minutes on every place stays within it, and a loop of free opens and closes writes at most
 * 2 × 12 × 25 = 600 small events an hour for a default package.
 */
export const OPENS_PER_PLACE_PER_HOUR = 12;

const HOUR = 3_600_000;

/** Connections an account may open in an hour: 12 a place, and never fewer than 60 (a one-place package still reconnects every minute). */
export const opensPerHour = (limit: number): number => Math.max(60, limit * OPENS_PER_PLACE_PER_HOUR);

/** The connection limit's refusal (package field `stream_connections`). */
export class StreamConnectionsExceeded extends DomainError {
  constructor(limit: number) {
    super(429, `Your package allows ${limit} stream connection${limit === 1 ? '' : 's'} at once (stream_connections); close one before opening another`, { limit: 'stream_connections' });
  }
}

/** Too many connections opened in the last hour (`OPENS_PER_PLACE_PER_HOUR` × `stream_connections`). */
export class StreamOpensExceeded extends DomainError {
  constructor(limit: number, retryAt: number, now: number) {
    super(429, `Your package allows ${limit} stream connections to be opened an hour (${OPENS_PER_PLACE_PER_HOUR} for each of stream_connections, at least 60); try again in ${Math.max(1, Math.ceil((retryAt - now) / 1000))} s`, { limit: 'stream_opens' });
  }
}

export class TooManyHashes extends DomainError {
  constructor() {
    super(400, `A connection may subscribe to at most ${MAX_HASHES_PER_CONNECTION} hashes; unsubscribe from one first`);
  }
}

function connectionOf(state: StreamConnections, id: string): StreamConnection {
  const c = own(state.connections, id);
  if (!c) throw new NotFound(`No stream connection ${id}`);
  return c;
}

export const streamConnectionsDecider: Decider<StreamConnections, StreamCommand, StreamEvent> = {
  // v2: the opens of the last hour are kept (v1 states and snapshots had none; the events are the same).
  // v3: ended subscriptions in chunks (`EndedChunk`); v2 held them as one list.
  name: 'streams.v3',
  initialState: () => ({ seq: 0, connections: {}, live: {}, ended: [], delivered: {}, opens: [] }),
  decide(command, state) {
    switch (command.type) {
      case 'OpenStreamConnection': {
        if (own(state.connections, command.connection)) throw new BadRequest(`Stream connection ${command.connection} is already open`);
        if (Object.keys(state.connections).length >= command.limit) throw new StreamConnectionsExceeded(command.limit);
        const opens = recentOpens(state, command.at);
        const perHour = opensPerHour(command.limit);
        if (opens.length >= perHour) throw new StreamOpensExceeded(perHour, opens[opens.length - perHour]! + HOUR, command.at);
        const host = command.host === undefined ? {} : { host: command.host };
        return [{ type: 'StreamConnected', data: { connection: command.connection, transport: command.transport, at: command.at, ...host } }];
      }
      case 'SubscribeStream': {
        const c = connectionOf(state, command.connection);
        // Clients resubscribe on reconnect and one sends subscribe to unsubscribe: a repeat is no change.
        if (bucketGet(c.hashes, command.hash)) return [];
        if (c.count >= MAX_HASHES_PER_CONNECTION) throw new TooManyHashes();
        return [{ type: 'StreamSubscribed', data: { connection: command.connection, hash: command.hash, at: command.at } }];
      }
      case 'UnsubscribeStream': {
        const c = connectionOf(state, command.connection);
        if (!bucketGet(c.hashes, command.hash)) return [];
        return [{ type: 'StreamUnsubscribed', data: { connection: command.connection, hash: command.hash, at: command.at } }];
      }
      case 'CloseStreamConnection': {
        if (!own(state.connections, command.connection)) return [];
        return [{ type: 'StreamDisconnected', data: { connection: command.connection, at: command.at, reason: command.reason } }];
      }
      case 'EndLostHostConnections': {
        const out: StreamEvent[] = [];
        for (const [connection, c] of Object.entries(state.connections)) {
          if (c.host !== command.host) continue;
          out.push({ type: 'StreamDisconnected', data: { connection, at: Math.max(command.aliveAt, c.openedAt), reason: command.reason } });
        }
        return out;
      }
      case 'RecordStreamDeliveries': {
        const minutes: DeliveredCounts = {};
        for (const [minute, byHash] of Object.entries(command.minutes)) {
          if (!Number.isSafeInteger(Number(minute)) || Number(minute) % MINUTE !== 0) throw new BadRequest(`Deliveries are counted by minute: ${minute} is not a minute's start`);
          const kept: Record<string, Licences> = {};
          for (const [hash, licences] of Object.entries(byHash)) {
            const counted = Object.entries(licences).filter(([type, n]) => Number.isSafeInteger(n) && n > 0 && isLicenceType(type));
            if (counted.length < Object.keys(licences).length) throw new BadRequest(`Delivered counts are whole numbers above 0 by licence type (hash ${hash})`);
            if (counted.length > MAX_LICENCE_TYPES) throw new BadRequest(`At most ${MAX_LICENCE_TYPES} licence types are counted for a hash in a minute`);
            if (counted.length > 0) kept[hash] = Object.fromEntries(counted);
          }
          if (Object.keys(kept).length > 0) minutes[minute] = kept;
        }
        if (Object.keys(minutes).length === 0) return [];
        return [{ type: 'StreamInteractionsDelivered', data: { at: command.at, minutes } }];
      }
    }
  },
  // By hand rather than through immer: a connection holds up to 5,000 hashes, and a draft per event
  // (proxies, then a deep freeze) made subscribing them quadratic in earnest. Each event copies only the
  // records it changes; nothing held is ever changed in place (cached states are shared).
  evolve(state, event) {
    const s = successor(state);
    switch (event.type) {
      case 'StreamConnected': {
        const d = event.data;
        const c: StreamConnection = { transport: d.transport, openedAt: d.at, hashes: {}, count: 0 };
        if (d.host !== undefined) c.host = d.host;
        s.connections = recordWith(s.connections, d.connection, c);
        s.opens = [...recentOpens(s, d.at), d.at];
        prune(s, d.at);
        return s;
      }
      case 'StreamSubscribed': {
        const d = event.data;
        const c = own(s.connections, d.connection);
        if (!c) return s;
        s.connections = recordWith(s.connections, d.connection, withHashes(c, bucketSet(c.hashes, d.hash, { since: d.at, seq: s.seq }), c.count + 1));
        s.live = bucketSet(s.live, d.hash, (bucketGet(s.live, d.hash) ?? 0) + 1);
        return s;
      }
      case 'StreamUnsubscribed': {
        const d = event.data;
        const c = own(s.connections, d.connection);
        const sub = c && bucketGet(c.hashes, d.hash);
        if (!c || !sub) return s;
        s.connections = recordWith(s.connections, d.connection, withHashes(c, bucketDelete(c.hashes, d.hash), c.count - 1));
        s.ended = endedSince(s.ended, d.at - STREAM_USAGE_KEPT_MS, [{ hash: d.hash, from: sub.since, to: d.at }]);
        leave(s, d.hash);
        pruneDelivered(s, d.at);
        return s;
      }
      case 'StreamDisconnected': {
        const d = event.data;
        const c = own(s.connections, d.connection);
        if (!c) return s;
        // A lost host's connection ends when it was last known alive, which may precede a subscription's start.
        const ends: EndedSubscription[] = [];
        for (const [hash, sub] of bucketEntries(c.hashes)) {
          ends.push({ hash, from: sub.since, to: Math.max(sub.since, d.at) });
          leave(s, hash);
        }
        s.ended = endedSince(s.ended, d.at - STREAM_USAGE_KEPT_MS, ends);
        s.connections = recordWithout(s.connections, d.connection);
        pruneDelivered(s, d.at);
        return s;
      }
      case 'StreamInteractionsDelivered': {
        const d = event.data;
        const counts = new Map<string, Map<string, Licences>>();
        for (const [minute, byHash] of Object.entries(d.minutes)) {
          for (const [hash, licences] of Object.entries(byHash)) {
            let byMinute = counts.get(hash);
            if (!byMinute) counts.set(hash, (byMinute = new Map()));
            byMinute.set(minute, licences);
          }
        }
        addDelivered(s, counts);
        prune(s, d.at);
        return s;
      }
      case 'StreamInteractionsMatched': {
        // A build before deliveries were counted: each live subscription of a matched hash counted one.
        const d = event.data;
        const minute = String(Math.floor(d.at / MINUTE) * MINUTE);
        const counts = new Map<string, Map<string, Licences>>();
        for (const item of d.items) {
          const type = licenceTypeOf(item.interaction);
          for (const hash of item.hashes) {
            const n = bucketGet(s.live, hash) ?? 0;
            if (n === 0) continue;
            let byMinute = counts.get(hash);
            if (!byMinute) counts.set(hash, (byMinute = new Map([[minute, {}]])));
            const l = byMinute.get(minute)!;
            l.interaction = (l.interaction ?? 0) + n;
            if (type) l[type] = (l[type] ?? 0) + n;
          }
        }
        addDelivered(s, counts);
        return s;
      }
    }
    return s;
  },
};

/**
 * The state after one more event, every record shared until the event's case replaces what it changes
 * (built field by field: a spread of the state was a large part of a reconnecting consumer's events).
 */
function successor(state: StreamConnections): StreamConnections {
  const s: StreamConnections = { seq: state.seq + 1, connections: state.connections, live: state.live, ended: state.ended, delivered: state.delivered };
  if (state.opens !== undefined) s.opens = state.opens;
  return s;
}

/** The connection with other hashes (its other fields as they were). */
function withHashes(c: StreamConnection, hashes: Buckets<StreamSubscription>, count: number): StreamConnection {
  const out: StreamConnection = { transport: c.transport, openedAt: c.openedAt, hashes, count };
  if (c.host !== undefined) out.host = c.host;
  return out;
}

/** The opens of the hour before `at` (a new array only when some fell out of it). */
function recentOpens(state: StreamConnections, at: number): number[] {
  const opens = state.opens ?? [];
  let i = 0;
  while (i < opens.length && opens[i]! <= at - HOUR) i++;
  return i === 0 ? opens : opens.slice(i);
}

/** Adds counts (by hash, then minute) to `s.delivered`, copying only the records it changes. */
function addDelivered(s: StreamConnections, counts: Map<string, Map<string, Licences>>): void {
  if (counts.size === 0) return;
  s.delivered = { ...s.delivered };
  for (const [hash, add] of counts) {
    const byMinute = { ...own(s.delivered, hash) };
    for (const [minute, licences] of add) {
      const l = { ...own(byMinute, minute) };
      for (const [type, n] of Object.entries(licences)) l[type] = (l[type] ?? 0) + n;
      byMinute[minute] = l;
    }
    s.delivered[hash] = byMinute;
  }
}

/** A subscription ended: the hash leaves the live set with its last holder. */
function leave(s: StreamConnections, hash: string): void {
  const n = (bucketGet(s.live, hash) ?? 1) - 1;
  s.live = n > 0 ? bucketSet(s.live, hash, n) : bucketDelete(s.live, hash);
}

/** Forgets usage older than `/usage` can ask for, so the state stays the size of a day's use. */
function prune(s: StreamConnections, at: number): void {
  const horizon = at - STREAM_USAGE_KEPT_MS;
  if (endsBefore(s.ended, horizon)) s.ended = endedSince(s.ended, horizon, []);
  pruneDelivered(s, at);
}

/** Whether some end in `ended` is before `horizon`. */
function endsBefore(ended: EndedChunk[], horizon: number): boolean {
  for (let i = 0; i < ended.length; i++) if (ended[i]!.earliest < horizon) return true;
  return false;
}

/**
 * The ends at or after `horizon`, in the order they ended, followed by `added`: the chunks with nothing
 * before the horizon are shared as they are, a chunk with something before it is cut, and what is added
 * goes into a copy of the last chunk and new chunks after it. What is added is never before the horizon
 * (it ends at the event's time or later), so pruning before adding keeps what pruning after did.
 */
function endedSince(ended: EndedChunk[], horizon: number, added: EndedSubscription[]): EndedChunk[] {
  let out: EndedChunk[] = ended;
  if (endsBefore(ended, horizon)) {
    out = [];
    for (const chunk of ended) {
      if (chunk.earliest >= horizon) out.push(chunk);
      else {
        const ends = chunk.ends.filter((e) => e.to >= horizon);
        if (ends.length > 0) out.push(chunkOf(ends));
      }
    }
  }
  if (added.length === 0) return out;
  if (out === ended) out = ended.slice();
  let k = 0;
  const last = out[out.length - 1];
  if (last && last.ends.length < ENDED_CHUNK) {
    const room = Math.min(ENDED_CHUNK - last.ends.length, added.length);
    out[out.length - 1] = chunkOf(last.ends.concat(added.slice(0, room)), last.earliest);
    k = room;
  }
  for (; k < added.length; k += ENDED_CHUNK) out.push(chunkOf(added.slice(k, k + ENDED_CHUNK)));
  return out;
}

/** A chunk of `ends`, its earliest end found (below `earliest`, when the chunk's earlier ends are known). */
function chunkOf(ends: EndedSubscription[], earliest = Infinity): EndedChunk {
  for (const e of ends) if (e.to < earliest) earliest = e.to;
  return { earliest, ends };
}

/** The account's ended subscriptions kept for `/usage`, in the order they ended. */
export const endedSubscriptions = (state: StreamConnections): EndedSubscription[] => state.ended.flatMap((c) => c.ends);

/** Forgets delivered counts older than `/usage` can ask for. */
function pruneDelivered(s: StreamConnections, at: number): void {
  const horizon = at - STREAM_USAGE_KEPT_MS;
  let delivered: Record<string, Record<string, Licences>> | undefined;
  for (const hash of Object.keys(s.delivered)) {
    const byMinute = s.delivered[hash]!;
    const old = Object.keys(byMinute).filter((minute) => Number(minute) < horizon);
    if (old.length === 0) continue;
    delivered ??= { ...s.delivered };
    const kept = { ...byMinute };
    for (const minute of old) delete kept[minute];
    if (Object.keys(kept).length === 0) delete delivered[hash];
    else delivered[hash] = kept;
  }
  if (delivered) s.delivered = delivered;
}

/**
 * A licence type is a source's name: short, lower case, and not a name every object answers to
 * (`constructor`), since counts are kept in plain records. Anything else in the data counts only as
 * `interaction`.
 */
const isLicenceType = (type: string): boolean => /^[a-z][a-z0-9_]{0,31}$/.test(type) && !(type in Object.prototype);

/** Licence types counted for one hash in one minute, at most (`interaction` among them); others count only as `interaction`. */
export const MAX_LICENCE_TYPES = 16;

/** The source an interaction's licence is counted under (`interaction.type`, or the service of its data). */
export function licenceTypeOf(interaction: Record<string, unknown>): string | undefined {
  const meta = interaction.interaction;
  if (typeof meta === 'object' && meta !== null && typeof (meta as { type?: unknown }).type === 'string') {
    const type = (meta as { type: string }).type;
    return isLicenceType(type) && type !== 'interaction' ? type : undefined;
  }
  if (typeof interaction.fb === 'object' && interaction.fb !== null) return 'facebook';
  if (typeof interaction.li === 'object' && interaction.li !== null) return 'linkedin';
  return undefined;
}

/** The hashes some connection of the account is subscribed to now. */
export const liveHashes = (state: StreamConnections): string[] => [...bucketEntries(state.live)].map(([hash]) => hash);

/** The hosts holding the account's open connections (those recorded with one). */
export const connectionHosts = (state: StreamConnections): string[] => [
  ...new Set(Object.values(state.connections).flatMap((c) => (c.host === undefined ? [] : [c.host]))),
];

/** Whether the connection is open and subscribed to the hash, and since which `seq`. */
export const subscriptionOf = (state: StreamConnections, connection: string, hash: string): StreamSubscription | undefined => {
  const c = own(state.connections, connection);
  return c && bucketGet(c.hashes, hash);
};

/** What `/usage` reports of streams in `[from, to)`: seconds subscribed and licences delivered, by hash. */
export function streamUsage(state: StreamConnections, from: number, to: number): Map<string, { seconds: number; licenses: Licences }> {
  const out = new Map<string, { seconds: number; licenses: Licences }>();
  const entry = (hash: string) => {
    let e = out.get(hash);
    if (!e) out.set(hash, (e = { seconds: 0, licenses: { interaction: 0 } }));
    return e;
  };
  const ms = new Map<string, number>();
  const add = (hash: string, a: number, b: number) => {
    const lo = Math.max(a, from);
    const hi = Math.min(b, to);
    if (hi > lo) ms.set(hash, (ms.get(hash) ?? 0) + (hi - lo));
  };
  for (const chunk of state.ended) for (const e of chunk.ends) add(e.hash, e.from, e.to);
  for (const c of Object.values(state.connections)) for (const [hash, sub] of bucketEntries(c.hashes)) add(hash, sub.since, to);
  for (const [hash, n] of ms) entry(hash).seconds = Math.floor(n / 1000);
  for (const [hash, byMinute] of Object.entries(state.delivered)) {
    for (const [minute, licences] of Object.entries(byMinute)) {
      const m = Number(minute);
      if (m < from - MINUTE + 1 || m >= to) continue;
      const e = entry(hash);
      for (const [type, n] of Object.entries(licences)) e.licenses[type] = (e.licenses[type] ?? 0) + n;
    }
  }
  for (const [hash, e] of out) if (e.seconds === 0 && Object.values(e.licenses).every((n) => n === 0)) out.delete(hash);
  return out;
}
