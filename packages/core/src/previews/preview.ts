import type { Decider, DomainEvent } from '../kernel/decider.ts';
import { evolveWith } from '../kernel/decider.ts';
import { BadRequest, Conflict, NotFound, illegalTransition } from '../calls/errors.ts';
import type { PreviewAnalysis, PreviewData } from './preview-analyses.ts';
import { own } from '../calls/input-limits.ts';

/**
 * Historics previews (docs/contract.md#endpoints-and-costs, docs/contract.md#states): a quick look at what a filter finds in past data.
 * `queued`, then `running`, then `succeeded` on the clock (a pure function of the creation and `now`);
 * the call that first finds it succeeded computes its data and records `PreviewSucceeded`.
 */
export type PreviewStatus = 'queued' | 'running' | 'succeeded';

export const PREVIEW_QUEUE_MS = 5_000;
/** Two seconds of work per hour of data, at least ten seconds. */
export const PREVIEW_MS_PER_HOUR = 2_000;
export const PREVIEW_MIN_RUN_MS = 10_000;
export const PREVIEW_MAX_SPAN_SECONDS = 31 * 86_400;

export interface Preview {
  id: string;
  hash: string;
  /** Epoch seconds. */
  start: number;
  end: number;
  sources: string[];
  /** As sent. */
  parameters: string;
  analyses: PreviewAnalysis[];
  createdAt: number;
  runMs: number;
  data: PreviewData[] | null;
  succeededAt: number | null;
}

export interface Previews {
  byId: Record<string, Preview>;
  order: string[];
}

export type PreviewEvent =
  | DomainEvent<
      'PreviewCreated',
      { id: string; hash: string; start: number; end: number; sources: string[]; parameters: string; analyses: PreviewAnalysis[]; at: number }
    >
  /** `at` is when the clock finished it. */
  | DomainEvent<'PreviewSucceeded', { id: string; at: number; data: PreviewData[] }>;

export type PreviewCommand =
  | { type: 'CreatePreview'; id: string; hash: string; start: number; end: number; sources: string[]; parameters: string; analyses: PreviewAnalysis[]; at: number }
  | { type: 'CompletePreview'; id: string; at: number; data: PreviewData[] };

export const previewsStream = (username: string): string => `previews:${username}`;

export const previewRunMs = (start: number, end: number): number => Math.max(PREVIEW_MIN_RUN_MS, Math.ceil((end - start) / 3600) * PREVIEW_MS_PER_HOUR);

export const previewFinishAt = (p: Preview): number => p.createdAt + PREVIEW_QUEUE_MS + p.runMs;

export function previewStatusAt(p: Preview, now: number): PreviewStatus {
  if (p.data !== null || now >= previewFinishAt(p)) return 'succeeded';
  return now < p.createdAt + PREVIEW_QUEUE_MS ? 'queued' : 'running';
}

export function previewProgressAt(p: Preview, now: number): number {
  const status = previewStatusAt(p, now);
  if (status === 'succeeded') return 100;
  if (status === 'queued') return 0;
  return Math.floor((100 * (now - p.createdAt - PREVIEW_QUEUE_MS)) / p.runMs);
}

export function existingPreview(state: Previews, id: string): Preview {
  const p = own(state.byId, id);
  if (!p) throw new NotFound(`No preview found with the ID ${id}`);
  return p;
}

export const previewsDecider: Decider<Previews, PreviewCommand, PreviewEvent> = {
  name: 'previews.v1',
  initialState: () => ({ byId: {}, order: [] }),
  decide(command, state) {
    if (command.type === 'CreatePreview') {
      if (own(state.byId, command.id)) throw new Conflict(`A preview with id ${command.id} already exists`);
      const { id, hash, start, end, sources, parameters, analyses, at } = command;
      if (start < 0 || end < 0) throw new BadRequest('start and end must be epoch seconds of 0 or more');
      if (start >= end) throw new BadRequest('Start cannot be after end: start must be before end');
      if (end * 1000 > at) throw new BadRequest('end must not be in the future: a preview covers past data');
      if (end - start > PREVIEW_MAX_SPAN_SECONDS) throw new BadRequest(`A preview may cover at most ${PREVIEW_MAX_SPAN_SECONDS / 86_400} days`);
      if (analyses.length === 0) throw new BadRequest("Missing param 'parameters'");
      return [{ type: 'PreviewCreated', data: { id, hash, start, end, sources, parameters, analyses, at } }];
    }
    const p = existingPreview(state, command.id);
    if (p.data !== null || previewStatusAt(p, command.at) !== 'succeeded') {
      throw illegalTransition('preview', 'complete', p.data !== null ? 'succeeded' : previewStatusAt(p, command.at));
    }
    return [{ type: 'PreviewSucceeded', data: { id: p.id, at: previewFinishAt(p), data: command.data } }];
  },
  evolve: evolveWith<Previews, PreviewEvent>({
    PreviewCreated(s, d) {
      s.byId[d.id] = {
        id: d.id,
        hash: d.hash,
        start: d.start,
        end: d.end,
        sources: d.sources,
        parameters: d.parameters,
        analyses: d.analyses,
        createdAt: d.at,
        runMs: previewRunMs(d.start, d.end),
        data: null,
        succeededAt: null,
      };
      s.order.push(d.id);
    },
    PreviewSucceeded(s, d) {
      const p = s.byId[d.id]!;
      p.data = d.data;
      p.succeededAt = d.at;
    },
  }),
};
