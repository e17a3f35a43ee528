import { fc, test } from '@fast-check/vitest';
import { expect } from 'vitest';
import type { AnalysisResult } from '../analysis/run-analysis.ts';
import { fold } from '../kernel/decider.ts';
import { DomainError } from '../calls/errors.ts';
import { TASK_QUEUE_LIMIT, TASK_MS, dueTasks, queuedAt, taskSlotsDecider, type TaskCommand, type TaskEvent, type TaskSlots } from './task-slot.ts';

const T0 = Date.parse('2026-04-01T12:00:00Z');
const result: AnalysisResult = { interactions: 0, unique_authors: 0, analysis: { analysis_type: 'freqDist', parameters: {}, redacted: true, results: [] } };
const hexId = (n: number) => n.toString(16).padStart(40, '0');

const queueCommand = (n: number, at: number, slots: number): TaskCommand => ({
  type: 'QueueTask',
  id: hexId(n),
  service: 'linkedin',
  taskType: 'analysis',
  name: `t${n}`,
  subscriptionId: 'r'.repeat(40),
  parameters: {},
  identityId: null,
  slots,
  at,
});

function queue(state: TaskSlots, n: number, at: number, slots: number): { state: TaskSlots; events: TaskEvent[] } | number {
  try {
    const events = taskSlotsDecider.decide(queueCommand(n, at, slots), state);
    return { state: fold(taskSlotsDecider, events, state), events };
  } catch (error) {
    if (error instanceof DomainError) return error.status;
    throw error;
  }
}

test.prop([fc.integer({ min: 1, max: 1_100 }), fc.integer({ min: 0, max: 10 ** 6 })], { numRuns: 15 })(
  'with N tasks queued at time t in one idle slot, the k-th finishes at t + k × 22.5 s, and never more than 1,000 are queued',
  (n, offset) => {
    const t = T0 + offset;
    let state = taskSlotsDecider.initialState();
    for (let k = 1; k <= n; k++) {
      const out = queue(state, k, t, 1);
      if (k > TASK_QUEUE_LIMIT) {
        expect(out).toBe(429);
        continue;
      }
      if (typeof out === 'number') throw new Error(`task ${k} refused with ${out}`);
      expect(out.events[0]!.data).toMatchObject({ finishAt: t + k * TASK_MS, slot: 0 });
      state = out.state;
      expect(queuedAt(state.slots[0], t)).toBe(k);
    }
  },
);

/**
 * The model of a slot: tasks in turn, one every 22.5 s, starting at arrival when idle. Arrivals are
 * random in time and the package has 1 to 3 slots; each new task joins the slot with the fewest queued.
 */
interface Model {
  now: number;
  slots: number;
  finishes: number[][];
  next: number;
}
interface Real {
  state: TaskSlots;
  events: TaskEvent[];
}
const queuedIn = (finishes: number[], at: number) => finishes.filter((f) => f > at).length;

class Arrive implements fc.Command<Model, Real> {
  check = () => true;
  run(m: Model, r: Real): void {
    const counts = m.finishes.map((f) => queuedIn(f, m.now));
    const slot = counts.indexOf(Math.min(...counts));
    const id = m.next++;
    const out = queue(r.state, id, m.now, m.slots);
    if (counts[slot]! >= TASK_QUEUE_LIMIT) {
      expect(out).toBe(429);
      return;
    }
    if (typeof out === 'number') throw new Error(`refused with ${out}`);
    const last = m.finishes[slot]!.at(-1) ?? 0;
    const finishAt = Math.max(m.now, last) + TASK_MS;
    expect(out.events[0]!.data).toMatchObject({ slot, finishAt });
    m.finishes[slot]!.push(finishAt);
    r.state = out.state;
    r.events.push(...out.events);
    check(m, r);
  }
  toString = () => 'arrive';
}

class Observe implements fc.Command<Model, Real> {
  check = () => true;
  run(m: Model, r: Real): void {
    const due = dueTasks(r.state, m.now);
    const results = Object.fromEntries(due.map((t) => [t.id, { result, message: '' }]));
    const events = taskSlotsDecider.decide({ type: 'CompleteTasks', at: m.now, results }, r.state);
    const expected = m.finishes.flat().filter((f) => f <= m.now).length - r.events.filter((e) => e.type === 'TaskCompleted').length;
    expect(events.length).toBe(expected);
    for (const e of events) expect(e.data.at).toBeLessThanOrEqual(m.now);
    r.state = fold(taskSlotsDecider, events, r.state);
    r.events.push(...events);
    check(m, r);
  }
  toString = () => 'observe';
}

class Advance implements fc.Command<Model, Real> {
  constructor(readonly ms: number) {}
  check = () => true;
  run(m: Model, r: Real): void {
    m.now += this.ms;
    check(m, r);
  }
  toString = () => `advance ${this.ms}`;
}

/** Per slot: finishes strictly in turn, 22.5 s apart at least (never two at once); replay rebuilds. */
function check(m: Model, r: Real): void {
  for (let s = 0; s < m.slots; s++) {
    const f = m.finishes[s]!;
    for (let k = 1; k < f.length; k++) expect(f[k]! - f[k - 1]!).toBeGreaterThanOrEqual(TASK_MS);
    expect(queuedAt(r.state.slots[s], m.now)).toBe(queuedIn(f, m.now));
    expect(queuedIn(f, m.now)).toBeLessThanOrEqual(TASK_QUEUE_LIMIT);
  }
  expect(fold(taskSlotsDecider, r.events)).toEqual(r.state);
}

test.prop(
  [
    fc.integer({ min: 1, max: 3 }),
    fc.commands(
      [
        fc.constant(new Arrive()),
        fc.constant(new Arrive()),
        fc.constant(new Observe()),
        fc.integer({ min: 0, max: 60_000 }).map((ms) => new Advance(ms)),
      ],
      { maxCommands: 80 },
    ),
  ],
  { numRuns: 150 },
)('task slots never disagree with the model of a slot working its queue in turn, and replaying the log rebuilds the state', (slots, cmds) => {
  fc.modelRun(
    () => ({
      model: { now: T0, slots, finishes: Array.from({ length: slots }, () => []), next: 1 },
      real: { state: taskSlotsDecider.initialState(), events: [] },
    }),
    cmds,
  );
});

test.prop([fc.array(fc.integer({ min: 0, max: 2_000 }), { maxLength: 1_000 }), fc.integer({ min: -10, max: 2_010 })])(
  'a queue in finishing order: the tasks queued at an instant are those finishing after it (found by halving, counted here)',
  (finishes, at) => {
    const queue = [...finishes].sort((a, b) => a - b).map((finishAt, i) => ({ id: hexId(i), finishAt }));
    expect(queuedAt({ lastFinish: queue.at(-1)?.finishAt ?? 0, queue }, at)).toBe(finishes.filter((f) => f > at).length);
  },
);
