import type { Decider, DomainEvent } from '../kernel/decider.ts';
import { streamNamer } from '../kernel/stream-names.ts';

/** One matched interaction and the subscribed hashes whose filters it matched. */
export interface StreamMatch {
  hashes: string[];
  interaction: Record<string, unknown>;
}

/**
 * What a write matched for an account's stream subscriptions. `seq` is the version of the account's
 * `streams:` aggregate it was decided on (the write guards that version): the subscriptions it is for
 * are those of a version up to `seq`. Absent in events written by builds before the relay, which wrote
 * it into the aggregate itself, decided on the version before its own.
 */
export type MatchedEvent = DomainEvent<'StreamInteractionsMatched', { at: number; seq?: number; items: StreamMatch[] }>;

export type RelayCommand = { type: 'RelayStreamMatches'; at: number; seq: number; items: StreamMatch[] };

/** How many matches the relay has carried (nothing is decided on it; the count says it moves). */
export interface RelayState {
  relayed: number;
}

/**
 * The relay of one account's matched interactions, from the write that matched them to every process
 * that serves a stream: a stream of the log of its own (`stream-matches:<username>`), so that its events
 * are transient. No decision folds them, so the stream host drops them from the log once every follower
 * has read them (`MATCHES_KEPT_MS`, `EventStore.dropTypes`), and the log does not keep a copy of every
 * interaction matched for every subscription.
 */
export const matchedRelayDecider: Decider<RelayState, RelayCommand, MatchedEvent> = {
  name: 'stream-matches.v1',
  initialState: () => ({ relayed: 0 }),
  decide(command) {
    if (command.items.length === 0) return [];
    return [{ type: 'StreamInteractionsMatched', data: { at: command.at, seq: command.seq, items: command.items } }];
  },
  evolve: (state, event) => ({ relayed: state.relayed + event.data.items.length }),
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
