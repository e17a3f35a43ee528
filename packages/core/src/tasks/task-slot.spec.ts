import { describe, expect, it } from 'vitest';
import type { AnalysisResult } from '../analysis/run-analysis.ts';
import { deciderSpec } from '@sdp/testing';
import { fold } from '../kernel/decider.ts';
import { fc, test } from '@fast-check/vitest';
import { STRATEGY_QUEUE_LIMIT, STRATEGY_TASK_MS, TASK_QUEUE_LIMIT, TASK_MS, allTasks, dueTasks, taskById, queuedAt, taskSlotsDecider, taskStatusAt, type TaskCommand, type TaskEvent, type TaskSlots } from './task-slot.ts';

const spec = () => deciderSpec(taskSlotsDecider);
const T0 = Date.parse('2026-04-01T12:00:00Z');
const id = (n: number) => n.toString(16).padStart(40, '0');
const params = { start: 1, end: 2, parameters: { analysis_type: 'freqDist', parameters: { target: 'fb.author.gender', threshold: 2 } } };
const queue = (n: number, at: number, slots = 1): Extract<TaskCommand, { type: 'QueueTask' }> => ({
  type: 'QueueTask',
  id: id(n),
  service: 'linkedin',
  taskType: 'analysis',
  name: `t${n}`,
  subscriptionId: 'r'.repeat(40),
  parameters: params,
  identityId: null,
  slots,
  at,
});
const queued = (n: number, at: number, finishAt: number, slot = 0): TaskEvent => ({
  type: 'TaskQueued',
  data: { id: id(n), service: 'linkedin', type: 'analysis', name: `t${n}`, subscriptionId: 'r'.repeat(40), parameters: params, identityId: null, slot, finishAt, at },
});
const result: AnalysisResult = { interactions: 0, unique_authors: 0, analysis: { analysis_type: 'freqDist', parameters: {}, redacted: true, results: [] } };

describe('task slots: queueing', () => {
  it('an idle slot finishes a new task 22.5 s after it is queued', () => {
    const s = spec().when(queue(1, T0)).then([queued(1, T0, T0 + TASK_MS)]);
    expect(taskStatusAt(taskById(s, id(1))!, T0 + TASK_MS - 1)).toBe('queued');
    expect(taskStatusAt(taskById(s, id(1))!, T0 + TASK_MS)).toBe('completed');
  });

  it('a busy slot finishes the next task 22.5 s after the one before it', () => {
    spec()
      .given([queued(1, T0, T0 + TASK_MS)])
      .when(queue(2, T0 + 1000))
      .then([queued(2, T0 + 1000, T0 + 2 * TASK_MS)]);
  });

  it('with two slots a new task joins the slot with the shorter queue', () => {
    spec()
      .given([queued(1, T0, T0 + TASK_MS, 0)])
      .when(queue(2, T0, 2))
      .then([queued(2, T0, T0 + TASK_MS, 1)]);
  });

  it('refuses a task when the queue holds 1,000 (a rate-limit refusal) and queues nothing', () => {
    const full = Array.from({ length: TASK_QUEUE_LIMIT }, (_, k) => queued(k + 1, T0, T0 + (k + 1) * TASK_MS));
    const e = spec().given(full).when(queue(TASK_QUEUE_LIMIT + 1, T0)).thenThrows(429, /queue is full/);
    expect(e.name).toBe('TaskQueueFull');
    // Once the first has finished there is room again.
    spec().given(full).when(queue(TASK_QUEUE_LIMIT + 1, T0 + TASK_MS)).then([queued(TASK_QUEUE_LIMIT + 1, T0 + TASK_MS, T0 + (TASK_QUEUE_LIMIT + 1) * TASK_MS)]);
  });

  it('refuses a type other than analysis or strategy and an empty name (400), and a reused id (409)', () => {
    spec().when({ ...queue(1, T0), taskType: 'insight' as never }).thenThrows(400, /type is invalid; valid values are: analysis,strategy/);
    spec().when({ ...queue(1, T0), name: '' }).thenThrows(400, /name/);
    spec().given([queued(1, T0, T0 + TASK_MS)]).when(queue(1, T0)).thenThrows(409);
  });
});

describe('task slots: completion', () => {
  it('records the tasks the clock has finished, dated at their finish, with their results', () => {
    const given = [queued(1, T0, T0 + TASK_MS), queued(2, T0, T0 + 2 * TASK_MS)];
    const s = spec()
      .given(given)
      .when({ type: 'CompleteTasks', at: T0 + 2 * TASK_MS - 1, results: { [id(1)]: { result, message: '' } } })
      .then([{ type: 'TaskCompleted', data: { id: id(1), at: T0 + TASK_MS, result, message: '' } }]);
    expect(taskById(s, id(1))!.result).toEqual(result);
    expect(queuedAt(s.slots[0], T0 + TASK_MS)).toBe(1);
    expect(dueTasks(s, T0 + 2 * TASK_MS).map((t) => t.id)).toEqual([id(2)]);
  });

  it('completes nothing before the first finish', () => {
    spec().given([queued(1, T0, T0 + TASK_MS)]).when({ type: 'CompleteTasks', at: T0, results: {} }).then([]);
  });

  it('a completed task leaves its slot\'s queue and keeps its result', () => {
    const events: TaskEvent[] = [queued(1, T0, T0 + TASK_MS), queued(2, T0, T0 + 2 * TASK_MS), { type: 'TaskCompleted', data: { id: id(1), at: T0 + TASK_MS, result, message: '' } }];
    const state = fold(taskSlotsDecider, events);
    expect(state.slots[0]!.queue.map((q) => q.id)).toEqual([id(2)]);
    expect(taskById(state, id(1))).toMatchObject({ completed: true, result });
  });
});

describe('task slots: the state', () => {
  it('keeps the queued order past a chunk of the order, and reads the same after a JSON round (a snapshot in a database)', () => {
    const events: TaskEvent[] = [];
    for (let n = 0; n < 600; n++) events.push(queued(n, T0 + n, T0 + (n + 1) * TASK_MS));
    events.push({ type: 'TaskCompleted', data: { id: id(0), at: T0 + TASK_MS, result, message: '' } });
    const state = fold(taskSlotsDecider, events);
    const ids = Array.from({ length: 600 }, (_, n) => id(n));
    expect(allTasks(state).map((t) => t.id)).toEqual(ids);
    // Buckets no task fell into are holes, which JSON writes as null.
    const read = JSON.parse(JSON.stringify(state)) as typeof state;
    expect(read.byId.some((b) => b === null)).toBe(true);
    expect(allTasks(read).map((t) => t.id)).toEqual(ids);
    expect(taskById(read, id(0))).toMatchObject({ completed: true, result });
    expect(taskById(read, id(600))).toBeUndefined();
    expect(taskSlotsDecider.evolve(read, queued(600, T0, T0 + 601 * TASK_MS)).order.flat()).toEqual([...ids, id(600)]);
  });
});

describe('task slots: the operator fills the queue (a semantic fault)', () => {
  it('a filled queue refuses a new task as a full one would, until one task would have finished', () => {
    const filled: TaskEvent = { type: 'TaskQueueFilled', data: { at: T0, until: T0 + TASK_MS } };
    spec().given([]).when({ type: 'FillTaskQueue', at: T0 }).then([filled]);
    spec().given([filled]).when(queue(1, T0 + TASK_MS - 1)).thenThrows(429, /task queue is full/);
    spec().given([filled]).when(queue(1, T0 + TASK_MS)).then([queued(1, T0 + TASK_MS, T0 + 2 * TASK_MS)]);
  });
});

describe('task slots: what a task stores', () => {
  it("a task's parameters over 32 KiB of JSON are refused 400 naming the limit; nothing is queued", () => {
    spec().given([]).when({ ...queue(1, T0), parameters: { ...params, note: 'x'.repeat(32 * 1024) } }).thenThrows(400, /parameters is over the limit of 32768 characters of JSON/);
  });
});

describe('strategy tasks: their own queue beside the analysis slots', () => {
  const strategy = (n: number, at: number): Extract<TaskCommand, { type: 'QueueTask' }> => ({ ...queue(n, at), taskType: 'strategy', parameters: { strategy: 'top_domains', parameters: { audience: { sectors: ['legal'] } } } });
  const queuedStrategy = (n: number, at: number, finishAt: number): TaskEvent => ({
    type: 'TaskQueued',
    data: { ...(queued(n, at, finishAt).data as Extract<TaskEvent, { type: 'TaskQueued' }>['data']), type: 'strategy', parameters: strategy(n, at).parameters },
  });
  const fullStrategies = Array.from({ length: STRATEGY_QUEUE_LIMIT }, (_, k) => queuedStrategy(k + 1, T0, T0 + (k + 1) * STRATEGY_TASK_MS));

  it('an idle strategy queue finishes a new strategy 45 s after it is queued, the next 45 s after that', () => {
    const s = spec().when(strategy(1, T0)).then([queuedStrategy(1, T0, T0 + STRATEGY_TASK_MS)]);
    expect(queuedAt(s.strategy, T0)).toBe(1);
    expect(s.slots).toEqual([]);
    spec().given([queuedStrategy(1, T0, T0 + STRATEGY_TASK_MS)]).when(strategy(2, T0 + 1000)).then([queuedStrategy(2, T0 + 1000, T0 + 2 * STRATEGY_TASK_MS)]);
  });

  it('a busy analysis slot does not delay a strategy, nor a busy strategy queue an analysis', () => {
    spec().given([queued(1, T0, T0 + 5 * TASK_MS)]).when(strategy(2, T0)).then([queuedStrategy(2, T0, T0 + STRATEGY_TASK_MS)]);
    spec().given([queuedStrategy(1, T0, T0 + 5 * STRATEGY_TASK_MS)]).when(queue(2, T0)).then([queued(2, T0, T0 + TASK_MS)]);
  });

  it('refuses a strategy when 200 are unfinished (a rate-limit refusal), while analysis tasks still queue', () => {
    const e = spec().given(fullStrategies).when(strategy(STRATEGY_QUEUE_LIMIT + 1, T0)).thenThrows(429, /strategy task queue is full: 200 strategy tasks are queued/);
    expect(e.name).toBe('StrategyQueueFull');
    spec().given(fullStrategies).when(queue(STRATEGY_QUEUE_LIMIT + 1, T0)).then([queued(STRATEGY_QUEUE_LIMIT + 1, T0, T0 + TASK_MS)]);
    // Once the first has finished there is room again.
    spec()
      .given(fullStrategies)
      .when(strategy(STRATEGY_QUEUE_LIMIT + 1, T0 + STRATEGY_TASK_MS))
      .then([queuedStrategy(STRATEGY_QUEUE_LIMIT + 1, T0 + STRATEGY_TASK_MS, T0 + (STRATEGY_QUEUE_LIMIT + 1) * STRATEGY_TASK_MS)]);
  });

  it('a full analysis queue does not refuse a strategy; the operator\'s fault fills both', () => {
    const fullAnalysis = Array.from({ length: TASK_QUEUE_LIMIT }, (_, k) => queued(k + 1, T0, T0 + (k + 1) * TASK_MS));
    spec().given(fullAnalysis).when(strategy(TASK_QUEUE_LIMIT + 1, T0)).then([queuedStrategy(TASK_QUEUE_LIMIT + 1, T0, T0 + STRATEGY_TASK_MS)]);
    spec().given([{ type: 'TaskQueueFilled', data: { at: T0, until: T0 + TASK_MS } }]).when(strategy(1, T0)).thenThrows(429, /strategy task queue is full/);
  });

  it('completes a strategy at its finish and takes it off the strategy queue only', () => {
    const strategyResult = { strategy: 'top_domains', version: 1, audience: { interactions: 0, unique_authors: 0 }, comparison_audience: { name: 'global' as const, interactions: 0, unique_authors: 0 }, redacted: true, results: [] };
    const given = [queued(1, T0, T0 + TASK_MS), queuedStrategy(2, T0, T0 + STRATEGY_TASK_MS)];
    const s = spec()
      .given(given)
      .when({ type: 'CompleteTasks', at: T0 + STRATEGY_TASK_MS, results: { [id(1)]: { result, message: '' }, [id(2)]: { result: strategyResult, message: '' } } })
      .then([
        { type: 'TaskCompleted', data: { id: id(1), at: T0 + TASK_MS, result, message: '' } },
        { type: 'TaskCompleted', data: { id: id(2), at: T0 + STRATEGY_TASK_MS, result: strategyResult, message: '' } },
      ]);
    expect(s.strategy!.queue).toEqual([]);
    expect(s.slots[0]!.queue).toEqual([]);
    expect(taskById(s, id(2))).toMatchObject({ completed: true, type: 'strategy', result: strategyResult });
  });

  it('reads a state written before strategy tasks (no strategy queue) as an empty one', () => {
    const old = JSON.parse(JSON.stringify(fold(taskSlotsDecider, [queued(1, T0, T0 + TASK_MS)]))) as TaskSlots;
    expect('strategy' in old).toBe(false);
    expect(taskSlotsDecider.decide(strategy(2, T0), old)).toEqual([queuedStrategy(2, T0, T0 + STRATEGY_TASK_MS)]);
  });

  // Random arrivals of both kinds: the strategy queue never holds more than 200 unfinished, each accepted
  // strategy finishes 45 s after the later of its arrival and the strategy before it, and a refusal
  // happens exactly when 200 are unfinished; the analysis slot's figures are what they would be alone.
  test.prop([fc.array(fc.record({ gapMs: fc.integer({ min: 0, max: 60_000 }), kind: fc.constantFrom('analysis', 'strategy'), burst: fc.integer({ min: 1, max: 120 }) }), { minLength: 1, maxLength: 12 })], { numRuns: 40 })(
    'the strategy queue is bounded at 200 and works one every 45 s, whatever analysis tasks do',
    (arrivals) => {
      let state = taskSlotsDecider.initialState();
      let analysisAlone = taskSlotsDecider.initialState();
      let at = T0;
      let n = 0;
      let modelLast = 0;
      const modelFinishes: number[] = [];
      for (const a of arrivals) {
        at += a.gapMs;
        for (let b = 0; b < a.burst; b++) {
          n++;
          const cmd = a.kind === 'strategy' ? strategy(n, at) : queue(n, at);
          const unfinished = modelFinishes.filter((f) => f > at).length;
          let events: TaskEvent[];
          try {
            events = taskSlotsDecider.decide(cmd, state);
          } catch (e) {
            if (a.kind === 'strategy') expect(unfinished, String(e)).toBeGreaterThanOrEqual(STRATEGY_QUEUE_LIMIT);
            else expect(() => taskSlotsDecider.decide(cmd, analysisAlone)).toThrow(/analysis task queue is full/);
            continue;
          }
          if (a.kind === 'strategy') {
            expect(unfinished).toBeLessThan(STRATEGY_QUEUE_LIMIT);
            modelLast = Math.max(at, modelLast) + STRATEGY_TASK_MS;
            modelFinishes.push(modelLast);
            expect(events).toEqual([queuedStrategy(n, at, modelLast)]);
          } else {
            analysisAlone = taskSlotsDecider.decide(cmd, analysisAlone).reduce(taskSlotsDecider.evolve, analysisAlone);
          }
          state = events.reduce(taskSlotsDecider.evolve, state);
          expect(queuedAt(state.strategy, at)).toBeLessThanOrEqual(STRATEGY_QUEUE_LIMIT);
          expect(state.slots).toEqual(analysisAlone.slots);
        }
      }
    },
  );
});
