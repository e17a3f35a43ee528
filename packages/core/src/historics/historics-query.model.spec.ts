import { fc, test } from '@fast-check/vitest';
import { expect } from 'vitest';
import { fold } from '../kernel/decider.ts';
import { DomainError } from '../calls/errors.ts';
import { historicsDecider, type HistoricsCommand, type HistoricsEvent, type HistoricsQueries } from './historics-query.ts';
import { QUEUE_MS, timelineProgress, runMsFor } from './progress.ts';

/**
 * The model of docs/contract.md#states for Historics queries: a query is prepared, started, paused, resumed,
 * stopped, renamed or deleted; an active query owes a fixed amount of clock time and succeeds when it
 * has had it. Only what decides an answer is kept.
 */
type Phase = 'init' | 'active' | 'paused' | 'stopped' | 'succeeded' | 'failed' | 'deleted';
interface ModelQuery {
  phase: Phase;
  /** Clock time still owed while active. */
  owed: number;
  since: number;
  progress: number;
}
interface Model {
  now: number;
  queries: Map<string, ModelQuery>;
  order: string[];
}
interface Real {
  state: HistoricsQueries;
  events: HistoricsEvent[];
}

const T0 = Date.parse('2026-02-01T00:00:00Z');
const START = T0 / 1000 - 86_400;
const END = START + 3600;
const OWED = QUEUE_MS + runMsFor(START, END);
const IDS = ['aaaaaaaaaaaaaaaaaaaa', 'bbbbbbbbbbbbbbbbbbbb'];

const done = (m: Model, q: ModelQuery): boolean => q.phase === 'active' && m.now - q.since >= q.owed;

type Outcome = string | number;

function predict(m: Model, c: HistoricsCommand): Outcome {
  if (c.type === 'PrepareHistorics') return m.queries.has(c.id) ? 409 : 'HistoricsPrepared';
  if (c.type === 'ObserveHistorics') {
    return m.order.filter((id) => done(m, m.queries.get(id)!)).map(() => 'HistoricsSucceeded').join(',');
  }
  const q = m.queries.get(c.id);
  if (!q || q.phase === 'deleted') return 404;
  const finished = done(m, q);
  const phase = finished ? 'succeeded' : q.phase;
  const prefix = finished ? 'HistoricsSucceeded,' : '';
  const running = phase === 'active';
  switch (c.type) {
    case 'StartHistorics':
      return phase === 'init' ? 'HistoricsStarted' : 409;
    case 'PauseHistorics':
      return running ? 'HistoricsPaused' : 409;
    case 'ResumeHistorics':
      return phase === 'paused' ? 'HistoricsResumed' : 409;
    case 'StopHistorics':
      return running || phase === 'paused' ? 'HistoricsStopped' : 409;
    case 'FailHistorics':
      return running || phase === 'paused' ? 'HistoricsFailed' : 409;
    case 'RenameHistorics':
      return `${prefix}HistoricsRenamed`;
    case 'DeleteHistorics':
      return `${prefix}HistoricsDeleted`;
  }
}

function applyToModel(m: Model, c: HistoricsCommand): void {
  if (c.type === 'PrepareHistorics') {
    m.queries.set(c.id, { phase: 'init', owed: OWED, since: 0, progress: 0 });
    m.order.push(c.id);
    return;
  }
  if (c.type === 'ObserveHistorics') {
    for (const id of m.order) if (done(m, m.queries.get(id)!)) m.queries.get(id)!.phase = 'succeeded';
    return;
  }
  const q = m.queries.get(c.id)!;
  if (done(m, q)) q.phase = 'succeeded';
  const spend = () => {
    q.owed -= m.now - q.since;
  };
  switch (c.type) {
    case 'StartHistorics':
    case 'ResumeHistorics':
      q.phase = 'active';
      q.since = m.now;
      return;
    case 'PauseHistorics':
      spend();
      q.phase = 'paused';
      return;
    case 'StopHistorics':
      if (q.phase === 'active') spend();
      q.phase = 'stopped';
      return;
    case 'FailHistorics':
      q.phase = 'failed';
      return;
    case 'DeleteHistorics':
      q.phase = 'deleted';
      m.order = m.order.filter((id) => id !== c.id);
      return;
    case 'RenameHistorics':
      return;
  }
}

class Step implements fc.Command<Model, Real> {
  constructor(readonly make: (at: number) => HistoricsCommand) {}
  check(): boolean {
    return true;
  }
  run(m: Model, r: Real): void {
    const command = this.make(m.now);
    const expected = predict(m, command);
    let outcome: Outcome;
    let events: HistoricsEvent[] = [];
    try {
      events = historicsDecider.decide(command, r.state);
      outcome = events.map((e) => e.type).join(',');
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      outcome = error.status;
    }
    expect(outcome, JSON.stringify(command)).toBe(expected);
    for (const e of events) r.state = historicsDecider.evolve(r.state, e);
    r.events.push(...events);
    if (typeof expected === 'string') applyToModel(m, command);
    check(m, r);
  }
  toString(): string {
    return this.make(0).type;
  }
}

class Advance implements fc.Command<Model, Real> {
  constructor(readonly ms: number) {}
  check(): boolean {
    return true;
  }
  run(m: Model, r: Real): void {
    m.now += this.ms;
    check(m, r);
  }
  toString(): string {
    return `advance ${this.ms}`;
  }
}

/** After every step: replay rebuilds the state, and progress never goes back. */
function check(m: Model, r: Real): void {
  expect(fold(historicsDecider, r.events)).toEqual(r.state);
  for (const id of m.order) {
    const q = m.queries.get(id)!;
    const real = r.state.byId[id]!;
    const p = timelineProgress(real, m.now);
    if (q.phase !== 'failed') expect(p).toBeGreaterThanOrEqual(q.progress);
    q.progress = p;
  }
}

const id = fc.constantFrom(...IDS);
const commands = [
  id.map(
    (id) =>
      new Step((at) => ({ type: 'PrepareHistorics', id, hash: 'f'.repeat(32), name: 'q', start: START, end: END, sources: ['tumblr'], sample: 100, dpu: 1, at, holdLimit: 1000 })),
  ),
  id.map((id) => new Step((at) => ({ type: 'StartHistorics', id, at }))),
  id.map((id) => new Step((at) => ({ type: 'PauseHistorics', id, at }))),
  id.map((id) => new Step((at) => ({ type: 'ResumeHistorics', id, at }))),
  id.map((id) => new Step((at) => ({ type: 'StopHistorics', id, at }))),
  id.map((id) => new Step((at) => ({ type: 'FailHistorics', id, at, reason: 'r' }))),
  id.map((id) => new Step((at) => ({ type: 'RenameHistorics', id, name: 'n', at }))),
  id.map((id) => new Step((at) => ({ type: 'DeleteHistorics', id, at }))),
  fc.constant(new Step((at) => ({ type: 'ObserveHistorics', at }))),
  fc.integer({ min: 0, max: 40_000 }).map((ms) => new Advance(ms)),
];

test.prop([fc.commands(commands, { maxCommands: 60 })], { numRuns: 200 })(
  'historics queries never disagree with the model of their transitions on the clock, and replaying the log rebuilds the state',
  (cmds) => {
    fc.modelRun(() => ({ model: { now: T0, queries: new Map(), order: [] }, real: { state: historicsDecider.initialState(), events: [] } }), cmds);
  },
);
