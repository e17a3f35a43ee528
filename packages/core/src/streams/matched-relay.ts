import { utf8Length } from '../calls/utf8.ts';
import type { Decider, DomainEvent } from '../kernel/decider.ts';
import { streamNamer } from '../kernel/stream-names.ts';

/** One matched interaction and the subscribed hashes whose filters it matched. */
export interface StreamMatch {
  hashes: string[];
  interaction: Record<string, unknown>;
}

/**
 * What the relay could not carry, said once per hash and window (`RELAY_WINDOW_MS`) so that the notice
 * itself stays small whatever the account ingests: `dropped` matches over the account's byte budget
 * (`count` of them in this write, for `hashes`), and `unmatched` hashes its filters were not run for, the
 * account's live hashes being over `matchedStreamHashes`.
 */
export interface RelayNotice {
  dropped?: { count: number; hashes: string[] };
  unmatched?: string[];
}

/**
 * What a write matched for an account's stream subscriptions. `seq` is the version of the account's
 * `streams:` aggregate it was decided on (the write guards that version): the subscriptions it is for
 * are those of a version up to `seq`. Absent in events written by builds before the relay, which wrote
 * it into the aggregate itself, decided on the version before its own. `dropped` and `unmatched` are
 * absent in events of builds before the relay's budget, and wherever nothing was left out: the same
 * type carries them so that a notice is followed, delivered and dropped from the log like the matches.
 */
export type MatchedEvent = DomainEvent<'StreamInteractionsMatched', { at: number; seq?: number; items: StreamMatch[] } & RelayNotice>;

export type RelayCommand = {
  type: 'RelayStreamMatches';
  at: number;
  seq: number;
  items: StreamMatch[];
  /** Bytes the account may relay in one window (`relayBytesPerWindow` of its package). */
  budget: number;
  /** Live hashes not matched at all (over the account's figure of filters per interaction). */
  unmatched?: string[];
};

/**
 * The relay's recent use: bytes relayed in the window `window` (a count of `RELAY_WINDOW_MS` since the
 * epoch) and the hashes already told of in it, so that a notice names each hash once a window.
 */
export interface RelayState {
  relayed: number;
  window: number;
  bytes: number;
  told: string[];
}

/**
 * Length of the windows the relay's budget is counted in: a minute, fine enough that a burst is held to
 * a small part of what the log keeps (`RELAY_WINDOWS_KEPT` windows).
 */
export const RELAY_WINDOW_MS = 60_000;

/** Bytes relayed per window per credit of the account's hourly allowance (`credits_per_hour`). */
export const RELAY_BYTES_PER_CREDIT = 1024;

/**
 * What an account may relay in one window: its stream is paid out of its hourly credits, so what it
 * may make the log hold grows with what it bought (the default 10,000 credits: 10,240,000 bytes a
 * minute, some 170 interactions of 1 KB a second).
 */
export const relayBytesPerWindow = (pkg: { credits_per_hour: number }): number => pkg.credits_per_hour * RELAY_BYTES_PER_CREDIT;

/**
 * What one match costs the budget: its JSON as the log stores it (UTF-8), its hashes included (a small
 * interaction matched by many hashes is mostly hashes), plus a row's share of the store's overhead.
 */
export const RELAY_ITEM_OVERHEAD = 64;

/**
 * What each match was found to cost, by the match: the relay's decision and the fold of the event it
 * writes read the same items, which were serialised once for each. Held weakly: a match no longer
 * referenced is forgotten with it.
 */
const knownBytes = new WeakMap<StreamMatch, number>();

export const matchBytes = (item: StreamMatch): number => {
  let bytes = knownBytes.get(item);
  if (bytes === undefined) knownBytes.set(item, (bytes = utf8Length(JSON.stringify(item)) + RELAY_ITEM_OVERHEAD));
  return bytes;
};

/** What a relay command comes to: what is carried, what is dropped, and what is said of it. */
export interface RelayPlan {
  window: number;
  relay: StreamMatch[];
  drop: StreamMatch[];
  /** Bytes the window holds once `relay` is carried. */
  bytes: number;
  notice: RelayNotice;
}

/**
 * Decides, in the order matched, which matches fit the window's budget: a match that does not fit is
 * dropped, a smaller one after it may still fit. A clock set back counts in the window already open,
 * so no window is ever charged twice from zero.
 */
export function planRelay(state: RelayState, command: RelayCommand): RelayPlan {
  const window = Math.max(state.window, Math.floor(command.at / RELAY_WINDOW_MS));
  let bytes = window === state.window ? state.bytes : 0;
  const told = new Set(window === state.window ? state.told : []);
  const relay: StreamMatch[] = [];
  const drop: StreamMatch[] = [];
  for (const item of command.items) {
    const cost = matchBytes(item);
    if (bytes + cost <= command.budget) {
      bytes += cost;
      relay.push(item);
    } else drop.push(item);
  }
  const notice: RelayNotice = {};
  const untold = (hashes: Iterable<string>): string[] => {
    const out: string[] = [];
    for (const h of hashes) {
      if (told.has(h)) continue;
      told.add(h);
      out.push(h);
    }
    return out;
  };
  const droppedHashes = untold(new Set(drop.flatMap((d) => d.hashes)));
  if (droppedHashes.length > 0) notice.dropped = { count: drop.length, hashes: droppedHashes };
  const unmatched = untold(command.unmatched ?? []);
  if (unmatched.length > 0) notice.unmatched = unmatched;
  return { window, relay, drop, bytes, notice };
}

/**
 * The relay of one account's matched interactions, from the write that matched them to every process
 * that serves a stream: a stream of the log of its own (`stream-matches:<username>`), so that its events
 * are transient. No decision but the budget folds them, so the stream host drops them from the log once
 * every follower has read them (`MATCHES_KEPT_MS`, `EventStore.dropTypes`), and the log does not keep a
 * copy of every interaction matched for every subscription. The budget bounds what the log holds
 * meanwhile: at most `budget` bytes a window, `RELAY_WINDOWS_KEPT` windows (docs/limits.md).
 */
export const matchedRelayDecider: Decider<RelayState, RelayCommand, MatchedEvent> = {
  name: 'stream-matches.v2',
  initialState: () => ({ relayed: 0, window: 0, bytes: 0, told: [] }),
  decide(command, state) {
    const plan = planRelay(state, command);
    // Past the budget a write that relays nothing and has nothing new to say writes nothing: what the
    // log holds stays bounded however much more the account ingests.
    if (plan.relay.length === 0 && !plan.notice.dropped && !plan.notice.unmatched) return [];
    return [{ type: 'StreamInteractionsMatched', data: { at: command.at, seq: command.seq, items: plan.relay, ...plan.notice } }];
  },
  evolve(state, event) {
    const d = event.data;
    const window = Math.max(state.window, Math.floor(d.at / RELAY_WINDOW_MS));
    const same = window === state.window;
    let bytes = same ? state.bytes : 0;
    for (const item of d.items) bytes += matchBytes(item);
    const fresh = [...(d.dropped?.hashes ?? []), ...(d.unmatched ?? [])];
    return {
      relayed: state.relayed + d.items.length,
      window,
      bytes,
      told: fresh.length === 0 ? (same ? state.told : []) : [...(same ? state.told : []), ...fresh],
    };
  },
};

/** What every relay stream's name begins with: what the stream host drops from the log (only these). */
export const RELAY_STREAM_PREFIX = 'stream-matches:';

export const matchedRelayStream: (username: string) => string = streamNamer(RELAY_STREAM_PREFIX);

/** The event type the relay writes (what a stream host follows, and drops). */
export const MATCHED_TYPE = 'StreamInteractionsMatched';

/**
 * How long (real time) matches stay in the log: a process that serves streams follows the log within
 * about a second, so every follower has read them long before; the stream host then drops them.
 */
export const MATCHES_KEPT_MS = 5 * 60_000;

/**
 * Windows of matches the log may hold at once. The host looks every 30 s and drops what was in the log
 * 5 minutes before its previous look, so a match lives at most about 6 minutes, which touch 7 windows.
 */
export const RELAY_WINDOWS_KEPT = MATCHES_KEPT_MS / RELAY_WINDOW_MS + 2;
