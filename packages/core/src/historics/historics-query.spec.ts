import { describe, expect, it } from 'vitest';
import { deciderSpec } from '@sdp/testing';
import { historicsDecider, historicsStatusAt, type HistoricsCommand, type HistoricsEvent } from './historics-query.ts';
import { MIN_RUN_MS, QUEUE_MS, timelineProgress, runMsFor } from './progress.ts';

const spec = () => deciderSpec(historicsDecider);
const ID = '0123456789abcdef0123';
const HASH = 'f'.repeat(32);
const T0 = Date.parse('2026-02-01T00:00:00Z');
const START = T0 / 1000 - 2 * 86_400;
const END = START + 3600; // one hour of data: a one-minute run
const RUN = runMsFor(START, END);

const prepared: HistoricsEvent = {
  type: 'HistoricsPrepared',
  data: { id: ID, hash: HASH, name: 'q', start: START, end: END, sources: ['tumblr'], sample: 100, dpu: 0.1, at: T0 },
};
const started: HistoricsEvent = { type: 'HistoricsStarted', data: { id: ID, at: T0 + 1000 } };
const paused: HistoricsEvent = { type: 'HistoricsPaused', data: { id: ID, at: T0 + 1000 + QUEUE_MS + RUN / 2, reason: null } };
const stopped: HistoricsEvent = { type: 'HistoricsStopped', data: { id: ID, at: T0 + 2000, reason: null } };
type Prepare = Extract<HistoricsCommand, { type: 'PrepareHistorics' }>;
const prepare = (over: Partial<Prepare> = {}): Prepare => ({
  type: 'PrepareHistorics',
  id: ID,
  hash: HASH,
  name: 'q',
  start: START,
  end: END,
  sources: ['tumblr'],
  sample: 100,
  dpu: 0.1,
  at: T0,
  holdLimit: 1000,
  ...over,
});

describe('historics: prepare', () => {
  it('prepares a query in init', () => {
    const s = spec().when(prepare()).then([prepared]);
    expect(historicsStatusAt(s.byId[ID]!, T0 + 10 * 3_600_000)).toBe('init');
  });

  it('refuses bad spans, future ends, unknown sources, bad samples and empty names (400)', () => {
    spec().when(prepare({ start: END, end: START })).thenThrows(400, /Start cannot be after end/);
    spec().when(prepare({ end: T0 / 1000 + 60 })).thenThrows(400, /future/);
    spec().when(prepare({ sources: ['myspace'] })).thenThrows(400, /sources is invalid/);
    spec().when(prepare({ sources: [] })).thenThrows(400, /sources/);
    spec().when(prepare({ sample: 50 })).thenThrows(400, /sample is invalid; valid values are: 10,100/);
    spec().when(prepare({ name: ' ' })).thenThrows(400, /name/);
    spec().when(prepare({ start: START - 400 * 86_400 })).thenThrows(400, /at most 366 days/);
  });
});

describe('historics: the clock and the transitions', () => {
  it('start puts it in the queue, then it runs, then it succeeds on the clock', () => {
    const s = spec().given([prepared]).when({ type: 'StartHistorics', id: ID, at: T0 + 1000 }).then([started]);
    const q = s.byId[ID]!;
    expect(historicsStatusAt(q, T0 + 1000)).toBe('queued');
    expect(historicsStatusAt(q, T0 + 1000 + QUEUE_MS)).toBe('running');
    expect(timelineProgress(q, T0 + 1000 + QUEUE_MS + RUN / 2)).toBe(50);
    expect(historicsStatusAt(q, T0 + 1000 + QUEUE_MS + RUN)).toBe('succeeded');
    expect(RUN).toBe(MIN_RUN_MS);
  });

  it('start when running (or queued, paused, stopped, succeeded) answers 409 naming the state', () => {
    spec().given([prepared, started]).when({ type: 'StartHistorics', id: ID, at: T0 + 2000 }).thenThrows(409, /Cannot start historics query: it is queued/);
    spec().given([prepared, started]).when({ type: 'StartHistorics', id: ID, at: T0 + 1000 + QUEUE_MS }).thenThrows(409, /it is running/);
    spec().given([prepared, started, paused]).when({ type: 'StartHistorics', id: ID, at: T0 + 9e6 }).thenThrows(409, /it is paused/);
    spec().given([prepared, started, stopped]).when({ type: 'StartHistorics', id: ID, at: T0 + 9e6 }).thenThrows(409, /it is stopped/);
    spec().given([prepared, started]).when({ type: 'StartHistorics', id: ID, at: T0 + 9e6 }).thenThrows(409, /it is succeeded/);
  });

  it('pause freezes the progress; resume continues it from there', () => {
    const s = spec().given([prepared, started]).when({ type: 'PauseHistorics', id: ID, at: paused.data.at }).then([paused]);
    expect(historicsStatusAt(s.byId[ID]!, T0 + 9e9)).toBe('paused');
    expect(timelineProgress(s.byId[ID]!, T0 + 9e9)).toBe(50);
    const resumedAt = T0 + 5e6;
    const r = spec()
      .given([prepared, started, paused])
      .when({ type: 'ResumeHistorics', id: ID, at: resumedAt })
      .then([{ type: 'HistoricsResumed', data: { id: ID, at: resumedAt } }]);
    expect(historicsStatusAt(r.byId[ID]!, resumedAt + RUN / 2 - 1)).toBe('running');
    expect(historicsStatusAt(r.byId[ID]!, resumedAt + RUN / 2)).toBe('succeeded');
  });

  it('pause is refused unless queued or running; resume unless paused (409)', () => {
    spec().given([prepared]).when({ type: 'PauseHistorics', id: ID, at: T0 + 1 }).thenThrows(409, /Cannot pause historics query: it is init/);
    spec().given([prepared, started, paused]).when({ type: 'PauseHistorics', id: ID, at: T0 + 9e6 }).thenThrows(409, /it is paused/);
    spec().given([prepared, started]).when({ type: 'ResumeHistorics', id: ID, at: T0 + 2000 }).thenThrows(409, /Cannot resume historics query: it is queued/);
    spec().given([prepared]).when({ type: 'ResumeHistorics', id: ID, at: T0 + 2 }).thenThrows(409, /it is init/);
  });

  it('stop ends a queued, running or paused query; it is refused when init, stopped or succeeded (409)', () => {
    spec().given([prepared, started]).when({ type: 'StopHistorics', id: ID, at: T0 + 2000 }).then([stopped]);
    spec()
      .given([prepared, started, paused])
      .when({ type: 'StopHistorics', id: ID, at: T0 + 9e6, reason: 'enough' })
      .then([{ type: 'HistoricsStopped', data: { id: ID, at: T0 + 9e6, reason: 'enough' } }]);
    spec().given([prepared]).when({ type: 'StopHistorics', id: ID, at: T0 + 1 }).thenThrows(409, /Cannot stop historics query: it is init/);
    spec().given([prepared, started, stopped]).when({ type: 'StopHistorics', id: ID, at: T0 + 9e6 }).thenThrows(409, /it is stopped/);
    spec().given([prepared, started]).when({ type: 'StopHistorics', id: ID, at: T0 + 9e6 }).thenThrows(409, /it is succeeded/);
  });

  it('fail ends an active query with progress 100', () => {
    const s = spec()
      .given([prepared, started])
      .when({ type: 'FailHistorics', id: ID, at: T0 + 2000, reason: 'source outage' })
      .then([{ type: 'HistoricsFailed', data: { id: ID, at: T0 + 2000, reason: 'source outage' } }]);
    expect(historicsStatusAt(s.byId[ID]!, T0 + 3000)).toBe('failed');
    expect(timelineProgress(s.byId[ID]!, T0 + 3000)).toBe(100);
  });

  it('a read observes a finish: it records when the clock finished the query', () => {
    const finish = T0 + 1000 + QUEUE_MS + RUN;
    spec().given([prepared, started]).when({ type: 'ObserveHistorics', at: finish + 5000 }).then([{ type: 'HistoricsSucceeded', data: { id: ID, at: finish } }]);
    spec().given([prepared, started]).when({ type: 'ObserveHistorics', at: finish - 1 }).then([]);
  });

  it('rename keeps the state (recording a finish first when the clock brought one)', () => {
    spec().given([prepared]).when({ type: 'RenameHistorics', id: ID, name: 'n', at: T0 + 5 }).then([{ type: 'HistoricsRenamed', data: { id: ID, name: 'n', at: T0 + 5 } }]);
    const finish = T0 + 1000 + QUEUE_MS + RUN;
    spec()
      .given([prepared, started])
      .when({ type: 'RenameHistorics', id: ID, name: 'n', at: finish + 1 })
      .then([
        { type: 'HistoricsSucceeded', data: { id: ID, at: finish } },
        { type: 'HistoricsRenamed', data: { id: ID, name: 'n', at: finish + 1 } },
      ]);
  });

  it('delete makes it gone: every command afterwards answers 404', () => {
    const deleted: HistoricsEvent = { type: 'HistoricsDeleted', data: { id: ID, at: T0 + 3 } };
    const s = spec().given([prepared, started]).when({ type: 'DeleteHistorics', id: ID, at: T0 + 3 }).then([deleted]);
    expect(s.order).toEqual([]);
    for (const c of [
      { type: 'DeleteHistorics', id: ID, at: T0 + 4 },
      { type: 'StartHistorics', id: ID, at: T0 + 4 },
      { type: 'PauseHistorics', id: ID, at: T0 + 4 },
      { type: 'ResumeHistorics', id: ID, at: T0 + 4 },
      { type: 'StopHistorics', id: ID, at: T0 + 4 },
      { type: 'RenameHistorics', id: ID, name: 'x', at: T0 + 4 },
    ] satisfies HistoricsCommand[]) {
      spec().given([prepared, started, deleted]).when(c).thenThrows(404, /No historic found with the ID/);
    }
    spec().given([prepared, deleted]).when(prepare()).thenThrows(409);
  });
});

describe('historics: what one account can make it hold', () => {
  it('a query past the package\'s historics_queries is refused 403 naming the field; a deleted one no longer counts', () => {
    spec().given([prepared]).when(prepare({ id: 'fedcba9876543210fedc', holdLimit: 1 })).thenThrows(403, /allows 1 historics query \(historics_queries\)/);
    spec()
      .given([prepared, { type: 'HistoricsDeleted', data: { id: ID, at: T0 + 1 } }])
      .when(prepare({ id: 'fedcba9876543210fedc', holdLimit: 1 }))
      .then([{ ...prepared, data: { ...prepared.data, id: 'fedcba9876543210fedc' } } as HistoricsEvent]);
  });
});
