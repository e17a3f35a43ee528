import { fc, test } from '@fast-check/vitest';
import { expect } from 'vitest';
import { fold } from '../kernel/decider.ts';
import { DomainError } from '../calls/errors.ts';
import { FINISHING_MS, pushDecider, statusAt, type PushCommand, type PushEvent, type PushState, type PushStatus } from './push-subscription.ts';

/**
 * The model: each subscription's status, moved eagerly when the clock moves (the system derives it
 * lazily from its events and `now`). Refusals: 404 for unknown or deleted, 409 for a transition the
 * table of docs/contract.md#states does not list.
 */
interface ModelSub {
  status: PushStatus;
  start: number;
  end: number | null;
}
interface Model {
  now: number;
  subs: Map<string, ModelSub>;
}
interface Real {
  now: number;
  state: PushState;
  log: PushEvent[];
}

const IDS = ['a'.repeat(32), 'b'.repeat(32), 'c'.repeat(32)];
const T0 = Date.parse('2026-03-01T10:00:00Z');

function advanceModel(m: Model, to: number): void {
  m.now = to;
  for (const s of m.subs.values()) {
    if (s.status === 'waiting_for_start' && s.start <= to) s.status = 'active';
    if ((s.status === 'active' || s.status === 'paused' || s.status === 'waiting_for_start') && s.end !== null && s.end <= to) s.status = 'finishing';
    if (s.status === 'finishing' && s.end !== null && s.end + FINISHING_MS <= to) s.status = 'finished';
  }
}

/** What the model expects of a command: the status it leads to, or the refusal. */
type Outcome = { ok: ModelSub } | { refused: number };

function expectModel(m: Model, c: PushCommand): Outcome {
  const sub = m.subs.get(c.id);
  if (c.type === 'CreatePush') {
    if (sub) return { refused: 400 };
    const start = c.start ?? m.now;
    const status = c.initial_status === 'paused' ? 'paused' : start > m.now ? 'waiting_for_start' : 'active';
    return { ok: { status, start, end: c.end ?? null } };
  }
  if (!sub || sub.status === 'deleted') return { refused: 404 };
  const s = sub.status;
  switch (c.type) {
    case 'PausePush':
      return s === 'active' || s === 'waiting_for_start' ? { ok: { ...sub, status: 'paused' } } : { refused: 409 };
    case 'ResumePush':
      return s === 'paused' ? { ok: { ...sub, status: sub.start > m.now ? 'waiting_for_start' : 'active' } } : { refused: 409 };
    case 'StopPush':
      return s === 'active' || s === 'paused' || s === 'waiting_for_start' ? { ok: { ...sub, status: 'finishing', end: m.now } } : { refused: 409 };
    case 'UpdatePush':
      return s === 'active' || s === 'paused' || s === 'waiting_for_start' ? { ok: sub } : { refused: 409 };
    case 'DeletePush':
      return { ok: { ...sub, status: 'deleted' } };
    default:
      return { ok: sub };
  }
}

class Act implements fc.Command<Model, Real> {
  constructor(readonly make: (now: number) => PushCommand) {}
  check(): boolean {
    return true;
  }
  run(m: Model, r: Real): void {
    const command = this.make(m.now);
    const expected = expectModel(m, command);
    let events: PushEvent[] | undefined;
    let refusal: number | undefined;
    try {
      events = pushDecider.decide(command, r.state);
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      refusal = error.status;
    }
    if ('refused' in expected) {
      expect(refusal, `${command.type} on ${m.subs.get(command.id)?.status ?? 'nothing'}`).toBe(expected.refused);
      return;
    }
    expect(refusal, `${command.type} on ${m.subs.get(command.id)?.status ?? 'nothing'}`).toBeUndefined();
    for (const e of events!) r.state = pushDecider.evolve(r.state, e);
    r.log.push(...events!);
    m.subs.set(command.id, expected.ok);
    agree(m, r);
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
    advanceModel(m, m.now + this.ms);
    r.now = m.now;
    agree(m, r);
  }
  toString(): string {
    return `advance ${this.ms}`;
  }
}

function agree(m: Model, r: Real): void {
  for (const [id, s] of m.subs) {
    const sub = r.state.subscriptions[id]!;
    expect(sub.status === 'deleted' ? 'deleted' : statusAt(sub, r.now), id).toBe(s.status);
  }
  expect(fold(pushDecider, r.log)).toEqual(r.state);
}

const id = fc.constantFrom(...IDS);
const commands = [
  fc
    .record({ id, initial: fc.constantFrom(undefined, 'active', 'paused', 'waiting_for_start'), startIn: fc.option(fc.integer({ min: 1, max: 120_000 })), lasts: fc.option(fc.integer({ min: 1, max: 300_000 })) })
    .map(({ id, initial, startIn, lasts }) => new Act((now) => {
      const start = startIn === null ? undefined : now + startIn;
      return {
        type: 'CreatePush', id, name: 'n', output_type: 'pull', output_params: {}, hash: 'd'.repeat(32), hash_type: 'stream',
        initial_status: initial as PushStatus | undefined, start, end: lasts === null ? undefined : (start ?? now) + lasts, at: now, holdLimit: 1000,
      };
    })),
  ...(['PausePush', 'ResumePush', 'StopPush', 'DeletePush', 'ObservePush'] as const).map((type) => id.map((i) => new Act((now) => ({ type, id: i, at: now })))),
  id.map((i) => new Act((now) => ({ type: 'UpdatePush', id: i, at: now, name: 'renamed' }))),
  fc.integer({ min: 1, max: 200_000 }).map((ms) => new Advance(ms)),
];

test.prop([fc.commands(commands, { maxCommands: 60 })], { numRuns: 300 })(
  'the push aggregate and the model of allowed transitions never disagree, and replaying the log rebuilds the state',
  (cmds) => {
    fc.modelRun(() => ({ model: { now: T0, subs: new Map() }, real: { now: T0, state: pushDecider.initialState(), log: [] } }), cmds);
  },
);
