import { describe, expect, it } from 'vitest';
import type { AnalysisResult } from '../analysis/run-analysis.ts';
import { deciderSpec } from '@sdp/testing';
import { fold } from '../kernel/decider.ts';
import { TASK_QUEUE_LIMIT, TASK_MS, allTasks, dueTasks, taskById, queuedAt, taskSlotsDecider, taskStatusAt, type TaskCommand, type TaskEvent } from './task-slot.ts';

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

  it('refuses a type other than analysis and an empty name (400), and a reused id (409)', () => {
    spec().when({ ...queue(1, T0), taskType: 'strategy' as never }).thenThrows(400, /type is invalid; valid values are: analysis/);
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
