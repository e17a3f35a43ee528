import { describe, expect, it } from 'vitest';
import { fc, test } from '@fast-check/vitest';
import { deciderSpec } from '@sdp/testing';
import { fold } from '../kernel/decider.ts';
import { DomainError } from '../calls/errors.ts';
import { recordingsDecider, runningCount, type RecordingCommand, type RecordingEvent, type Recordings } from './recording.ts';

const H1 = 'a'.repeat(32);
const H2 = 'b'.repeat(32);
const spec = () => deciderSpec(recordingsDecider);
const started = (id: string, at = 1000, hash = H1): RecordingEvent => ({ type: 'RecordingStarted', data: { id, hash, name: `n-${id}`, service: 'facebook', at, identityId: null } });
const stopped = (id: string, at = 2000): RecordingEvent => ({ type: 'RecordingStopped', data: { id, at } });
const start = (id: string, concurrentLimit = 10): RecordingCommand => ({ type: 'StartRecording', id, hash: H1, name: `n-${id}`, service: 'facebook', at: 1000, identityId: null, concurrentLimit, holdLimit: 1000 });

describe('recordings: given / when / then', () => {
  it('starts a new recording running', () => {
    const state = spec().given([]).when(start('r1')).then([started('r1')]);
    expect(state.byId.r1).toMatchObject({ status: 'running', start: 1000, end: null });
  });

  it('stops a running recording (204 at the wire) and sets its end', () => {
    const state = spec().given([started('r1')]).when({ type: 'StopRecording', id: 'r1', at: 2000 }).then([stopped('r1')]);
    expect(state.byId.r1).toMatchObject({ status: 'stopped', end: 2000 });
  });

  it('refuses to stop a stopped recording with 409 Subscription not running', () => {
    spec().given([started('r1'), stopped('r1')]).when({ type: 'StopRecording', id: 'r1', at: 3000 }).thenThrows(409, /Subscription not running/);
  });

  it('refuses to restart a running recording with 409 naming its state', () => {
    spec().given([started('r1')]).when({ type: 'RestartRecording', id: 'r1', at: 3000, concurrentLimit: 10 }).thenThrows(409, /running/);
  });

  it('restarts a stopped recording, clearing its end', () => {
    const state = spec()
      .given([started('r1'), stopped('r1')])
      .when({ type: 'RestartRecording', id: 'r1', at: 3000, concurrentLimit: 10 })
      .then([{ type: 'RecordingRestarted', data: { id: 'r1', at: 3000 } }]);
    expect(state.byId.r1).toMatchObject({ status: 'running', start: 3000, end: null });
    expect(state.byId.r1!.runs).toEqual([{ start: 1000, end: 2000 }, { start: 3000, end: null }]);
  });

  it('refuses 404 Subscription not found for an unknown id, on every action', () => {
    spec().given([]).when({ type: 'StopRecording', id: 'x', at: 1 }).thenThrows(404, /Subscription not found/);
    spec().given([]).when({ type: 'RestartRecording', id: 'x', at: 1, concurrentLimit: 10 }).thenThrows(404);
    spec().given([]).when({ type: 'UpdateRecording', id: 'x', at: 1, name: 'y' }).thenThrows(404);
  });

  it('refuses a start beyond the package concurrent_recordings with 403, and a restart too', () => {
    spec().given([started('r1'), started('r2')]).when(start('r3', 2)).thenThrows(403, /concurrent_recordings/);
    spec().given([started('r1'), started('r2'), stopped('r2')]).when(start('r3', 2)).then([{ ...started('r3') }]);
    spec().given([started('r1'), stopped('r1'), started('r2')]).when({ type: 'RestartRecording', id: 'r1', at: 5, concurrentLimit: 1 }).thenThrows(403);
  });

  it('refuses a start without a name (400 Missing param name) and a name over 255 characters', () => {
    spec().given([]).when({ ...start('r1'), name: '  ' } as RecordingCommand).thenThrows(400, /Missing param 'name'/);
    spec().given([]).when({ ...start('r1'), name: 'x'.repeat(256) } as RecordingCommand).thenThrows(400, /255/);
  });

  it('refuses a second start with the same id (409)', () => {
    spec().given([started('r1')]).when(start('r1')).thenThrows(409);
  });

  it('updates hash and name of a running or stopped recording, and decides nothing when nothing changes', () => {
    spec()
      .given([started('r1')])
      .when({ type: 'UpdateRecording', id: 'r1', at: 5, hash: H2 })
      .then([{ type: 'RecordingUpdated', data: { id: 'r1', at: 5, hash: H2 } }]);
    spec()
      .given([started('r1'), stopped('r1')])
      .when({ type: 'UpdateRecording', id: 'r1', at: 5, name: 'new' })
      .then([{ type: 'RecordingUpdated', data: { id: 'r1', at: 5, name: 'new' } }]);
    spec().given([started('r1')]).when({ type: 'UpdateRecording', id: 'r1', at: 5, hash: H1 }).then([]);
  });

  it('refuses an update with neither hash nor name (400)', () => {
    spec().given([started('r1')]).when({ type: 'UpdateRecording', id: 'r1', at: 5 }).thenThrows(400);
  });
});

/** The model: which ids exist and whether each runs. Simpler than the aggregate, never a copy of it. */
interface Model {
  running: Map<string, boolean>;
  limit: number;
}

type Real = { state: Recordings; log: RecordingEvent[]; clock: number };

function attempt(real: Real, command: RecordingCommand): DomainError | undefined {
  try {
    const events = recordingsDecider.decide(command, real.state);
    for (const e of events) real.state = recordingsDecider.evolve(real.state, e);
    real.log.push(...events);
    return undefined;
  } catch (error) {
    if (error instanceof DomainError) return error;
    throw error;
  }
}

function check(model: Model, real: Real): void {
  const ids = Object.keys(real.state.byId).sort();
  expect(ids).toEqual([...model.running.keys()].sort());
  for (const [id, run] of model.running) expect(real.state.byId[id]!.status).toBe(run ? 'running' : 'stopped');
  expect(runningCount(real.state)).toBeLessThanOrEqual(model.limit);
  // Replaying the log rebuilds the same state.
  expect(fold(recordingsDecider, real.log)).toEqual(real.state);
}

const runningIn = (m: Model) => [...m.running.values()].filter(Boolean).length;

class StartCmd implements fc.Command<Model, Real> {
  constructor(readonly id: string) {}
  check = () => true;
  run(m: Model, r: Real): void {
    const error = attempt(r, { type: 'StartRecording', id: this.id, hash: H1, name: 'n', service: 'facebook', at: ++r.clock, identityId: null, concurrentLimit: m.limit, holdLimit: 1000 });
    if (m.running.has(this.id)) expect(error?.status).toBe(409);
    else if (runningIn(m) >= m.limit) expect(error?.status).toBe(403);
    else {
      expect(error).toBeUndefined();
      m.running.set(this.id, true);
    }
    check(m, r);
  }
  toString = () => `start(${this.id})`;
}

class RestartCmd implements fc.Command<Model, Real> {
  constructor(readonly id: string) {}
  check = () => true;
  run(m: Model, r: Real): void {
    const error = attempt(r, { type: 'RestartRecording', id: this.id, at: ++r.clock, concurrentLimit: m.limit });
    if (!m.running.has(this.id)) expect(error?.status).toBe(404);
    else if (m.running.get(this.id)) expect(error?.status).toBe(409);
    else if (runningIn(m) >= m.limit) expect(error?.status).toBe(403);
    else {
      expect(error).toBeUndefined();
      m.running.set(this.id, true);
    }
    check(m, r);
  }
  toString = () => `restart(${this.id})`;
}

class StopCmd implements fc.Command<Model, Real> {
  constructor(readonly id: string) {}
  check = () => true;
  run(m: Model, r: Real): void {
    const error = attempt(r, { type: 'StopRecording', id: this.id, at: ++r.clock });
    if (!m.running.has(this.id)) expect(error?.status).toBe(404);
    else if (!m.running.get(this.id)) expect(error?.status).toBe(409);
    else {
      expect(error).toBeUndefined();
      m.running.set(this.id, false);
    }
    check(m, r);
  }
  toString = () => `stop(${this.id})`;
}

class UpdateCmd implements fc.Command<Model, Real> {
  constructor(readonly id: string, readonly name: string) {}
  check = () => true;
  run(m: Model, r: Real): void {
    const error = attempt(r, { type: 'UpdateRecording', id: this.id, at: ++r.clock, name: this.name });
    if (!m.running.has(this.id)) expect(error?.status).toBe(404);
    else {
      expect(error).toBeUndefined();
      expect(r.state.byId[this.id]!.name).toBe(this.name);
    }
    check(m, r);
  }
  toString = () => `update(${this.id}, ${this.name})`;
}

describe('recordings: model-based', () => {
  const id = fc.constantFrom('r1', 'r2', 'r3', 'r4');
  const commands = fc.commands(
    [
      id.map((x) => new StartCmd(x)),
      id.map((x) => new RestartCmd(x)),
      id.map((x) => new StopCmd(x)),
      fc.tuple(id, fc.constantFrom('a', 'b')).map(([x, n]) => new UpdateCmd(x, n)),
    ],
    { size: '+1' },
  );
  test.prop([fc.integer({ min: 1, max: 3 }), commands])('the aggregate and the model never disagree, and the log replays to the same state', (limit, cmds) => {
    fc.modelRun(() => ({ model: { running: new Map(), limit }, real: { state: recordingsDecider.initialState(), log: [], clock: 0 } }), cmds);
  });
});

describe('recordings: what one account can make it hold', () => {
  it('a recording past the package\'s recordings is refused 403 naming the field, stopped ones counted (they can be restarted)', () => {
    spec()
      .given([started('r1'), stopped('r1'), started('r2')])
      .when({ ...(start('r3') as Extract<RecordingCommand, { type: 'StartRecording' }>), holdLimit: 2 })
      .thenThrows(403, /allows 2 recordings \(recordings\)/);
    spec().given([started('r1'), stopped('r1')]).when({ type: 'RestartRecording', id: 'r1', at: 3000, concurrentLimit: 10 }).then([{ type: 'RecordingRestarted', data: { id: 'r1', at: 3000 } }]);
  });
});
