import type { Decider, DomainEvent } from '../kernel/decider.ts';
import { evolveWith } from '../kernel/decider.ts';
import { BadRequest, Conflict, DomainError, NotFound } from '../calls/errors.ts';
import { own } from '../calls/input-limits.ts';
import { checkHolding } from '../accounting/holding-limits.ts';

/**
 * Recordings (the insight topic-data recording): a filter hash recorded into the index while `running`.
 * All of an account's recordings share one stream, so the concurrent-recordings limit is decided where
 * every running recording is visible.
 */
export type RecordingStatus = 'running' | 'stopped';

export interface Recording {
  id: string;
  hash: string;
  name: string;
  service: string;
  status: RecordingStatus;
  /** Unix ms of the latest start. */
  start: number;
  /** Unix ms of the latest stop; `null` while running. */
  end: number | null;
  createdAt: number;
  updatedAt: number;
  identityId: string | null;
  /** Every running period, for usage (`seconds` recorded within a period). */
  runs: { start: number; end: number | null }[];
}

export interface Recordings {
  byId: Record<string, Recording>;
  /** Ids in creation order. */
  order: string[];
}

export type RecordingEvent =
  | DomainEvent<'RecordingStarted', { id: string; hash: string; name: string; service: string; at: number; identityId: string | null }>
  | DomainEvent<'RecordingRestarted', { id: string; at: number; name?: string }>
  | DomainEvent<'RecordingStopped', { id: string; at: number }>
  | DomainEvent<'RecordingUpdated', { id: string; at: number; hash?: string; name?: string }>;

export type RecordingCommand =
  | { type: 'StartRecording'; id: string; hash: string; name: string; service: string; at: number; identityId: string | null; concurrentLimit: number; holdLimit: number }
  | { type: 'RestartRecording'; id: string; at: number; name?: string; concurrentLimit: number }
  | { type: 'StopRecording'; id: string; at: number }
  | { type: 'UpdateRecording'; id: string; at: number; hash?: string; name?: string };

export const recordingsStream = (username: string): string => `recordings:${username}`;

export const NAME_MAX = 255;

/** A package limit refusal: the account may run no more recordings at once. */
export class ConcurrentRecordingsExceeded extends DomainError {
  constructor(limit: number) {
    super(403, `Your package allows ${limit} concurrent recording${limit === 1 ? '' : 's'} (concurrent_recordings); stop one before starting another`);
  }
}

export const runningCount = (state: Recordings): number => state.order.filter((id) => state.byId[id]!.status === 'running').length;

function checkName(name: string): void {
  if (name.trim().length === 0) throw new BadRequest("Missing param 'name'");
  if (name.length > NAME_MAX) throw new BadRequest(`name must be at most ${NAME_MAX} characters`);
}

function existing(state: Recordings, id: string): Recording {
  const r = own(state.byId, id);
  if (!r) throw new NotFound('Subscription not found');
  return r;
}

function checkConcurrency(state: Recordings, limit: number): void {
  if (runningCount(state) >= limit) throw new ConcurrentRecordingsExceeded(limit);
}

export const recordingsDecider: Decider<Recordings, RecordingCommand, RecordingEvent> = {
  name: 'recordings.v1',
  initialState: () => ({ byId: {}, order: [] }),
  decide(command, state) {
    switch (command.type) {
      case 'StartRecording': {
        if (own(state.byId, command.id)) throw new Conflict(`A recording with id ${command.id} already exists`);
        checkName(command.name);
        checkHolding('recordings', state.order.length, command.holdLimit);
        checkConcurrency(state, command.concurrentLimit);
        const { id, hash, name, service, at, identityId } = command;
        return [{ type: 'RecordingStarted', data: { id, hash, name, service, at, identityId } }];
      }
      case 'RestartRecording': {
        const r = existing(state, command.id);
        if (r.status === 'running') throw new Conflict(`Cannot start recording ${r.id}: it is running`);
        if (command.name !== undefined) checkName(command.name);
        checkConcurrency(state, command.concurrentLimit);
        return [{ type: 'RecordingRestarted', data: { id: r.id, at: command.at, ...(command.name !== undefined ? { name: command.name } : {}) } }];
      }
      case 'StopRecording': {
        const r = existing(state, command.id);
        if (r.status === 'stopped') throw new Conflict(`Subscription not running: cannot stop recording ${r.id}, it is stopped`);
        return [{ type: 'RecordingStopped', data: { id: r.id, at: command.at } }];
      }
      case 'UpdateRecording': {
        const r = existing(state, command.id);
        if (command.hash === undefined && command.name === undefined) throw new BadRequest('Give a new hash, a new name or both');
        if (command.name !== undefined) checkName(command.name);
        const changed = (command.hash !== undefined && command.hash !== r.hash) || (command.name !== undefined && command.name !== r.name);
        if (!changed) return [];
        return [
          {
            type: 'RecordingUpdated',
            data: { id: r.id, at: command.at, ...(command.hash !== undefined ? { hash: command.hash } : {}), ...(command.name !== undefined ? { name: command.name } : {}) },
          },
        ];
      }
    }
  },
  evolve: evolveWith<Recordings, RecordingEvent>({
    RecordingStarted(s, d) {
      s.byId[d.id] = {
        id: d.id,
        hash: d.hash,
        name: d.name,
        service: d.service,
        status: 'running',
        start: d.at,
        end: null,
        createdAt: d.at,
        updatedAt: d.at,
        identityId: d.identityId,
        runs: [{ start: d.at, end: null }],
      };
      s.order.push(d.id);
    },
    RecordingRestarted(s, d) {
      const r = s.byId[d.id]!;
      r.status = 'running';
      r.start = d.at;
      r.end = null;
      r.updatedAt = d.at;
      if (d.name !== undefined) r.name = d.name;
      r.runs.push({ start: d.at, end: null });
    },
    RecordingStopped(s, d) {
      const r = s.byId[d.id]!;
      r.status = 'stopped';
      r.end = d.at;
      r.updatedAt = d.at;
      const last = r.runs[r.runs.length - 1];
      if (last) last.end = d.at;
    },
    RecordingUpdated(s, d) {
      const r = s.byId[d.id]!;
      if (d.hash !== undefined) r.hash = d.hash;
      if (d.name !== undefined) r.name = d.name;
      r.updatedAt = d.at;
    },
  }),
};

/** The newest recording of a filter hash (how recordings are named before API 1.3). */
export function recordingByHash(state: Recordings, hash: string): Recording | undefined {
  for (let i = state.order.length - 1; i >= 0; i--) {
    const r = state.byId[state.order[i]!]!;
    if (r.hash === hash) return r;
  }
  return undefined;
}

export const runningRecordings = (state: Recordings): Recording[] =>
  state.order.map((id) => state.byId[id]!).filter((r) => r.status === 'running');
