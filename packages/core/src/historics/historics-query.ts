import type { Decider, DomainEvent } from '../kernel/decider.ts';
import { evolveWith } from '../kernel/decider.ts';
import { BadRequest, Conflict, NotFound, illegalTransition } from '../calls/errors.ts';
import { QUEUE_MS, timelineCompletion, runMsFor, timelineStatus, timelineWork, type HistoricsPhase, type HistoricsStatus, type Timeline } from './progress.ts';
import { own } from '../calls/input-limits.ts';
import { checkHolding } from '../accounting/holding-limits.ts';

/**
 * Historics queries (docs/contract.md#endpoints-and-costs, docs/contract.md#states): a filter run over past data. All of an account's
 * queries share one stream. `init` after prepare; start puts it in the queue, then it runs and
 * succeeds on the clock (see `progress.ts`); pause, resume and stop act on a queued or running query;
 * delete makes it gone (404 afterwards).
 */
export interface HistoricsQuery extends Timeline {
  id: string;
  /** The filter hash (`definition_id`). */
  hash: string;
  name: string;
  /** Epoch seconds. */
  start: number;
  end: number;
  sources: string[];
  sample: number;
  /** DPU the query costs, fixed at prepare from the filter's cost and the span. */
  dpu: number;
  createdAt: number;
  updatedAt: number;
  /** When it reached `succeeded`, `failed` or `stopped`. */
  endedAt: number | null;
  reason: string | null;
}

export interface HistoricsQueries {
  byId: Record<string, HistoricsQuery>;
  /** Live ids in creation order (a deleted query leaves the list). */
  order: string[];
  /** Ids deleted, so a second delete still answers 404 and an id is never reused. */
  deleted: Record<string, true>;
}

export type HistoricsEvent =
  | DomainEvent<'HistoricsPrepared', { id: string; hash: string; name: string; start: number; end: number; sources: string[]; sample: number; dpu: number; at: number }>
  | DomainEvent<'HistoricsStarted', { id: string; at: number }>
  | DomainEvent<'HistoricsPaused', { id: string; at: number; reason: string | null }>
  | DomainEvent<'HistoricsResumed', { id: string; at: number }>
  | DomainEvent<'HistoricsStopped', { id: string; at: number; reason: string | null }>
  /** `at` is when the clock finished it, which may be before the call that observed it. */
  | DomainEvent<'HistoricsSucceeded', { id: string; at: number }>
  | DomainEvent<'HistoricsFailed', { id: string; at: number; reason: string }>
  | DomainEvent<'HistoricsRenamed', { id: string; name: string; at: number }>
  | DomainEvent<'HistoricsDeleted', { id: string; at: number }>;

export type HistoricsCommand =
  | { type: 'PrepareHistorics'; id: string; hash: string; name: string; start: number; end: number; sources: string[]; sample: number; dpu: number; at: number; holdLimit: number }
  | { type: 'StartHistorics'; id: string; at: number }
  | { type: 'PauseHistorics'; id: string; at: number; reason?: string }
  | { type: 'ResumeHistorics'; id: string; at: number }
  | { type: 'StopHistorics'; id: string; at: number; reason?: string }
  | { type: 'RenameHistorics'; id: string; name: string; at: number }
  | { type: 'DeleteHistorics'; id: string; at: number }
  /** Marks a query failed (the platform's own runs never fail; an operator or embedder may say so). */
  | { type: 'FailHistorics'; id: string; at: number; reason: string }
  /** Records every finish the clock has brought about by `at` (reads call it so history shows them). */
  | { type: 'ObserveHistorics'; at: number };

export const historicsStream = (username: string): string => `historics:${username}`;

export const HISTORICS_NAME_MAX = 255;
export const HISTORICS_SAMPLES = [10, 100] as const;
export const HISTORICS_MAX_SPAN_SECONDS = 366 * 86_400;

/** Sources a query may name: the original service's historic sources and the platform's services. */
export const HISTORICS_SOURCES: readonly string[] = [
  'bitly',
  'disqus',
  'facebook',
  'facebook_page',
  'googleplus',
  'instagram',
  'intensedebate',
  'linkedin',
  'reddit',
  'tumblr',
  'twitter',
  'wordpress',
  'youtube',
];

export const notFoundMessage = (id: string): string => `No historic found with the ID ${id} `;

export function existingHistoricsQuery(state: HistoricsQueries, id: string, message = notFoundMessage): HistoricsQuery {
  const q = own(state.byId, id);
  if (!q) throw new NotFound(message(id));
  return q;
}

export function checkHistoricsName(name: string): void {
  if (name.trim().length === 0) throw new BadRequest("Missing param 'name'");
  if (name.length > HISTORICS_NAME_MAX) throw new BadRequest(`name must be at most ${HISTORICS_NAME_MAX} characters`);
}

/** The span rules shared by prepare and status: epoch seconds, start before end, not too long. */
export function checkHistoricsSpan(start: number, end: number): void {
  if (start < 0 || end < 0) throw new BadRequest('start and end must be epoch seconds of 0 or more');
  if (start >= end) throw new BadRequest('Start cannot be after end: start must be before end');
  if (end - start > HISTORICS_MAX_SPAN_SECONDS) throw new BadRequest(`A query may cover at most ${HISTORICS_MAX_SPAN_SECONDS / 86_400} days`);
}

export function checkHistoricsSources(sources: string[]): void {
  if (sources.length === 0) throw new BadRequest("Missing param 'sources'");
  for (const s of sources) {
    if (!HISTORICS_SOURCES.includes(s)) throw new BadRequest(`sources is invalid: ${s}; valid values are: ${HISTORICS_SOURCES.join(',')}`);
  }
}

/** The status the clock gives a query at `at`. */
export const historicsStatusAt = (q: HistoricsQuery, at: number): HistoricsStatus => timelineStatus(q, at);

/** A finish the clock brought about but no event recorded yet. */
function finishEvents(q: HistoricsQuery, at: number): HistoricsEvent[] {
  if (q.phase === 'active' && timelineStatus(q, at) === 'succeeded') return [{ type: 'HistoricsSucceeded', data: { id: q.id, at: timelineCompletion(q)! } }];
  return [];
}

const WHAT = 'historics query';

export const historicsDecider: Decider<HistoricsQueries, HistoricsCommand, HistoricsEvent> = {
  name: 'historics.v1',
  initialState: () => ({ byId: {}, order: [], deleted: {} }),
  decide(command, state) {
    if (command.type === 'PrepareHistorics') {
      if (own(state.byId, command.id) || own(state.deleted, command.id)) throw new Conflict(`A historics query with id ${command.id} already exists`);
      checkHistoricsName(command.name);
      checkHolding('historics_queries', state.order.length, command.holdLimit);
      checkHistoricsSpan(command.start, command.end);
      if (command.end * 1000 > command.at) throw new BadRequest('end must not be in the future: Historics queries cover past data');
      checkHistoricsSources(command.sources);
      if (!(HISTORICS_SAMPLES as readonly number[]).includes(command.sample)) throw new BadRequest(`sample is invalid; valid values are: ${HISTORICS_SAMPLES.join(',')}`);
      const { id, hash, name, start, end, sources, sample, dpu, at } = command;
      return [{ type: 'HistoricsPrepared', data: { id, hash, name, start, end, sources: [...new Set(sources)], sample, dpu, at } }];
    }
    if (command.type === 'ObserveHistorics') {
      return state.order.flatMap((id) => finishEvents(state.byId[id]!, command.at));
    }
    const q = existingHistoricsQuery(state, command.id);
    const finished = finishEvents(q, command.at);
    const status: HistoricsStatus = finished.length > 0 ? 'succeeded' : timelineStatus(q, command.at);
    const refuse = (action: string) => illegalTransition(WHAT, action, status);
    const id = q.id;
    switch (command.type) {
      case 'StartHistorics':
        if (status !== 'init') throw refuse('start');
        return [{ type: 'HistoricsStarted', data: { id, at: command.at } }];
      case 'PauseHistorics':
        if (status !== 'queued' && status !== 'running') throw refuse('pause');
        return [{ type: 'HistoricsPaused', data: { id, at: command.at, reason: command.reason ?? null } }];
      case 'ResumeHistorics':
        if (status !== 'paused') throw refuse('resume');
        return [{ type: 'HistoricsResumed', data: { id, at: command.at } }];
      case 'StopHistorics':
        if (status !== 'queued' && status !== 'running' && status !== 'paused') throw refuse('stop');
        return [{ type: 'HistoricsStopped', data: { id, at: command.at, reason: command.reason ?? null } }];
      case 'FailHistorics':
        if (status !== 'queued' && status !== 'running' && status !== 'paused') throw refuse('fail');
        return [{ type: 'HistoricsFailed', data: { id, at: command.at, reason: command.reason } }];
      case 'RenameHistorics':
        checkHistoricsName(command.name);
        return [...finished, { type: 'HistoricsRenamed', data: { id, name: command.name, at: command.at } }];
      case 'DeleteHistorics':
        return [...finished, { type: 'HistoricsDeleted', data: { id, at: command.at } }];
    }
  },
  evolve: evolveWith<HistoricsQueries, HistoricsEvent>({
    HistoricsPrepared(s, d) {
      s.byId[d.id] = {
        id: d.id,
        hash: d.hash,
        name: d.name,
        start: d.start,
        end: d.end,
        sources: d.sources,
        sample: d.sample,
        dpu: d.dpu,
        createdAt: d.at,
        updatedAt: d.at,
        endedAt: null,
        reason: null,
        phase: 'init',
        workMs: 0,
        activeSince: null,
        runMs: runMsFor(d.start, d.end),
      };
      s.order.push(d.id);
    },
    HistoricsStarted(s, d) {
      const q = s.byId[d.id]!;
      q.phase = 'active';
      q.activeSince = d.at;
      q.updatedAt = d.at;
    },
    HistoricsPaused(s, d) {
      const q = s.byId[d.id]!;
      q.workMs = timelineWork(q as HistoricsQuery, d.at);
      q.phase = 'paused';
      q.activeSince = null;
      q.reason = d.reason;
      q.updatedAt = d.at;
    },
    HistoricsResumed(s, d) {
      const q = s.byId[d.id]!;
      q.phase = 'active';
      q.activeSince = d.at;
      q.reason = null;
      q.updatedAt = d.at;
    },
    HistoricsStopped(s, d) {
      const q = s.byId[d.id]!;
      q.workMs = timelineWork(q as HistoricsQuery, d.at);
      q.phase = 'stopped';
      q.activeSince = null;
      q.reason = d.reason;
      q.endedAt = d.at;
      q.updatedAt = d.at;
    },
    HistoricsSucceeded(s, d) {
      const q = s.byId[d.id]!;
      q.workMs = QUEUE_MS + q.runMs;
      q.phase = 'succeeded';
      q.activeSince = null;
      q.endedAt = d.at;
      q.updatedAt = d.at;
    },
    HistoricsFailed(s, d) {
      const q = s.byId[d.id]!;
      q.workMs = timelineWork(q as HistoricsQuery, d.at);
      q.phase = 'failed';
      q.activeSince = null;
      q.reason = d.reason;
      q.endedAt = d.at;
      q.updatedAt = d.at;
    },
    HistoricsRenamed(s, d) {
      const q = s.byId[d.id]!;
      q.name = d.name;
      q.updatedAt = d.at;
    },
    HistoricsDeleted(s, d) {
      delete s.byId[d.id];
      s.order = s.order.filter((id) => id !== d.id);
      s.deleted[d.id] = true;
    },
  }),
};

export type { HistoricsPhase, HistoricsStatus };
