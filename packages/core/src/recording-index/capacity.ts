import type { Decider, DomainEvent } from '../kernel/decider.ts';
import type { StoredEvent } from '../kernel/events.ts';
import { evolveWith } from '../kernel/decider.ts';
import type { Interaction } from '../filters/index.ts';

/**
 * Daily recording capacity (docs/contract.md#filter-and-analysis-limits, docs/contract.md#limiting-day-capacity-and-retention): per limiting day, each recording may keep at most
 * 1,000,000 interactions, and all of an account's recordings together at most the daily account limit.
 * This aggregate decides which matches are kept, so the counts that bill are decided in one place and
 * persisted as events; the events also carry the kept interactions, so the index is rebuilt from the log.
 */
export const PER_FILTER_DAILY_CAP = 1_000_000;

/** Monthly index capacity / 30, rounded up to a whole million (12,000,000 gives 1,000,000). */
export function dailyAccountLimit(indexCapacityPerMonth: number): number {
  return Math.ceil(indexCapacityPerMonth / 30 / 1_000_000) * 1_000_000;
}

export interface RecordingMatch {
  recording: string;
  /** Tags the recording's filter gave this interaction (as `MatchResult` of the filter language). */
  tags: string[];
  tagTree?: Record<string, string[]>;
  categories?: string[];
}

/** One interaction offered to the index, with every running recording that matched it. */
export interface OfferedInteraction {
  /** Unix ms the interaction is indexed at. */
  at: number;
  interaction: Interaction;
  matches: RecordingMatch[];
}

export interface DailyCapacity {
  /** Interactions kept today across the account's recordings. */
  used: number;
  byRecording: Record<string, number>;
  /** Matches refused today because a cap was reached. */
  refused: Record<string, number>;
}

export type CapacityEvent = InteractionsRecordedEvent | CapacityReachedEvent;
export type InteractionsRecordedEvent = DomainEvent<
      'InteractionsRecorded',
      {
        day: string;
        /** Only what was kept: every item has at least one match. */
        items: OfferedInteraction[];
        kept: Record<string, number>;
        refused: Record<string, number>;
      }
    >;
/** The type of the events that carry recorded interactions: the recording index reads only these. */
export const RECORDED_TYPE = 'InteractionsRecorded';

/**
 * An `InteractionsRecorded` event as a store may hold it once the recording index has heard it whole
 * (`MemoryStoreOptions.heldAs`): the counts the capacity aggregate folds, without the interactions. Any
 * other event as it is.
 */
export function recordedCountsOnly(event: StoredEvent): StoredEvent {
  if (event.type !== RECORDED_TYPE) return event;
  const { day, kept, refused } = event.data as InteractionsRecordedEvent['data'];
  return { ...event, data: { day, items: [], kept, refused } };
}
/** The operator's semantic fault: the day's account capacity counts as used up, with nothing stored. */
export type CapacityReachedEvent = DomainEvent<'CapacityReached', { day: string; used: number }>;

export interface RecordInteractionsCommand {
  type: 'RecordInteractions';
  day: string;
  accountLimit: number;
  /** Per-recording daily cap; `PER_FILTER_DAILY_CAP` unless a test narrows it. */
  perFilterCap?: number;
  items: OfferedInteraction[];
}

/** The operator's fault (`/_admin/faults/effects`): the rest of the day's account capacity is spent. */
export interface ReachCapacityCommand {
  type: 'ReachCapacity';
  day: string;
  accountLimit: number;
}

export const capacityStream = (username: string, dayKey: string): string => `capacity:${username}:${dayKey}`;

/** The username of a capacity stream (the index reads it back from the log). */
export function usernameOfCapacityStream(stream: string): string | undefined {
  const m = /^capacity:(.*):\d{4}-\d{2}-\d{2}$/.exec(stream);
  return m ? m[1] : undefined;
}

export function remainingFor(state: DailyCapacity, recording: string, accountLimit: number): { index: number; account: number } {
  return {
    index: Math.max(0, PER_FILTER_DAILY_CAP - (state.byRecording[recording] ?? 0)),
    account: Math.max(0, accountLimit - state.used),
  };
}

export const dailyCapacityDecider: Decider<DailyCapacity, RecordInteractionsCommand | ReachCapacityCommand, CapacityEvent> = {
  name: 'capacity.v1',
  initialState: () => ({ used: 0, byRecording: {}, refused: {} }),
  decide(command, state) {
    if (command.type === 'ReachCapacity') {
      return state.used >= command.accountLimit ? [] : [{ type: 'CapacityReached', data: { day: command.day, used: command.accountLimit } }];
    }
    let used = state.used;
    const perRecording = new Map<string, number>();
    const kept: Record<string, number> = {};
    const refused: Record<string, number> = {};
    const items: OfferedInteraction[] = [];
    const cap = command.perFilterCap ?? PER_FILTER_DAILY_CAP;
    for (const item of command.items) {
      const matches: RecordingMatch[] = [];
      for (const m of item.matches) {
        const already = perRecording.get(m.recording) ?? state.byRecording[m.recording] ?? 0;
        if (already >= cap || used >= command.accountLimit) {
          refused[m.recording] = (refused[m.recording] ?? 0) + 1;
          continue;
        }
        perRecording.set(m.recording, already + 1);
        kept[m.recording] = (kept[m.recording] ?? 0) + 1;
        used++;
        matches.push(m);
      }
      if (matches.length > 0) items.push({ at: item.at, interaction: item.interaction, matches });
    }
    if (items.length === 0 && Object.keys(refused).length === 0) return [];
    return [{ type: 'InteractionsRecorded', data: { day: command.day, items, kept, refused } }];
  },
  evolve: evolveWith<DailyCapacity, CapacityEvent>({
    InteractionsRecorded(s, d) {
      for (const [id, n] of Object.entries(d.kept)) {
        s.byRecording[id] = (s.byRecording[id] ?? 0) + n;
        s.used += n;
      }
      for (const [id, n] of Object.entries(d.refused)) s.refused[id] = (s.refused[id] ?? 0) + n;
    },
    CapacityReached(s, d) {
      s.used = Math.max(s.used, d.used);
    },
  }),
};
