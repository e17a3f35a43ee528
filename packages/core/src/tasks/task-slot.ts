import { checkStoredJson } from '../calls/input-limits.ts';
import type { AnalysisResult } from '../analysis/run-analysis.ts';
import type { StrategyResult } from './strategy.ts';
import type { Decider, DomainEvent } from '../kernel/decider.ts';
import { BadRequest, Conflict, oneOf, RateLimited } from '../calls/errors.ts';
import { own } from '../calls/input-limits.ts';

/**
 * Analysis task slots (docs/contract.md#task-slots). An account has `task_slots` slots; each works its own
 * queue in turn, one task every 22.5 s of clock time (160 an hour), and holds at most 1,000 queued
 * tasks. A task's finish is fixed when it is queued (one task's time after the slot's previous task, or
 * after it is queued when the slot is idle), so status and queue length are pure functions of the events
 * and `now`. A call that finds tasks the clock has finished records `TaskCompleted` with the result,
 * dated at the finish.
 */
export const TASK_MS = 22_500;
export const TASKS_PER_HOUR = 3_600_000 / TASK_MS;
export const TASK_QUEUE_LIMIT = 1_000;
export { TASK_TYPES } from '../contract/params.ts';
import { TASK_TYPES } from '../contract/params.ts';
/**
 * Strategy tasks have a queue of their own beside the analysis slots, so neither kind can starve the
 * other: one queue per account, at most 200 unfinished (the original's `X-Strategy-Tasks-Queue-Limit`),
 * one strategy every 45 s (two analysis tasks' time: a strategy runs an audience and a comparison).
 */
export const STRATEGY_TASK_MS = 2 * TASK_MS;
export const STRATEGY_TASKS_PER_HOUR = 3_600_000 / STRATEGY_TASK_MS;
export const STRATEGY_QUEUE_LIMIT = 200;
export type TaskType = (typeof TASK_TYPES)[number];
export type TaskStatus = 'queued' | 'completed';

export interface AnalysisTask {
  id: string;
  service: string;
  type: TaskType;
  name: string;
  /** The recording the analysis runs over. */
  subscriptionId: string;
  /** The request's `parameters` as sent (echoed back). */
  parameters: Record<string, unknown>;
  identityId: string | null;
  slot: number;
  createdAt: number;
  /** When the slot finishes it. */
  finishAt: number;
  /** Set when a call recorded its completion. */
  result: AnalysisResult | StrategyResult | null;
  message: string;
  completed: boolean;
}

export interface TaskSlot {
  /** Finish of the last task ever queued here: the next one starts after it. */
  lastFinish: number;
  /** Tasks not yet recorded completed, in finishing order. */
  queue: { id: string; finishAt: number }[];
}

export interface TaskSlots {
  /**
   * Tasks in `BUCKETS` buckets by a hash of their id (see `evolve`); read through `taskById`. A bucket
   * no task has fallen into yet is missing (or `null`, as JSON writes a hole).
   */
  byId: (Record<string, AnalysisTask> | null | undefined)[];
  /** Ids in the order they were queued, in chunks of `ORDER_CHUNK`; read through `allTasks`. */
  order: string[][];
  slots: TaskSlot[];
  /** The strategy tasks' queue; absent until the first strategy task (and in states written before them). */
  strategy?: TaskSlot;
  /** Set by the operator's fault: every slot counts as full before this time. */
  fullUntil?: number;
}

export type TaskEvent =
  | DomainEvent<
      'TaskQueued',
      {
        id: string;
        service: string;
        type: TaskType;
        name: string;
        subscriptionId: string;
        parameters: Record<string, unknown>;
        identityId: string | null;
        slot: number;
        finishAt: number;
        at: number;
      }
    >
  | DomainEvent<'TaskCompleted', { id: string; at: number } & TaskOutcome>
  /** The operator's semantic fault: the queue answers "full" until a place would free in a full queue. */
  | DomainEvent<'TaskQueueFilled', { at: number; until: number }>;

/** What a finished task carries: the analysis or strategy result, or `null` and why it could not run. */
export interface TaskOutcome {
  result: AnalysisResult | StrategyResult | null;
  message: string;
}

export type TaskCommand =
  | {
      type: 'QueueTask';
      id: string;
      service: string;
      taskType: TaskType;
      name: string;
      subscriptionId: string;
      parameters: Record<string, unknown>;
      identityId: string | null;
      /** The package's `task_slots` (analysis tasks; strategy tasks have their one queue). */
      slots: number;
      at: number;
    }
  /** Records every task finished by `at`, with the results computed for them (see `dueTasks`). */
  | { type: 'CompleteTasks'; at: number; results: Record<string, TaskOutcome> }
  /** The operator's fault (`/_admin/faults/effects`): full for as long as one task takes. */
  | { type: 'FillTaskQueue'; at: number };

export const tasksStream = (username: string): string => `tasks:${username}`;

export const TASK_NAME_MAX = 255;

/**
 * Each event copies only the containers it changes: the bucket list, one bucket, the last chunk of the
 * order. Small fixed-size lists keep that cheap however many tasks an account has queued (one object
 * keyed by 256 id prefixes cost a tenth of a millisecond to copy, on every event).
 */
const BUCKETS = 1024;
const ORDER_CHUNK = 256;

/** FNV-1a over the id's characters: buckets fill evenly whatever alphabet ids are spelled in. */
function bucketOf(id: string): number {
  let h = 0x811c9dc5;
  for (let k = 0; k < id.length; k++) h = Math.imul(h ^ id.charCodeAt(k), 0x01000193);
  return (h >>> 0) % BUCKETS;
}

export function taskById(state: TaskSlots, id: string): AnalysisTask | undefined {
  const bucket = state.byId[bucketOf(id)];
  return bucket ? own(bucket, id) : undefined;
}

/** Every task in the order it was queued. */
export const allTasks = (state: TaskSlots): AnalysisTask[] => state.order.flat().map((id) => taskById(state, id)!);

function withTask(byId: TaskSlots['byId'], task: AnalysisTask): TaskSlots['byId'] {
  const b = bucketOf(task.id);
  const out = byId.slice();
  out[b] = { ...byId[b], [task.id]: task };
  return out;
}

function appendOrder(order: string[][], id: string): string[][] {
  const last = order[order.length - 1];
  if (!last || last.length >= ORDER_CHUNK) return [...order, [id]];
  const out = order.slice();
  out[out.length - 1] = [...last, id];
  return out;
}

/**
 * Tasks a slot still has to finish at `at` (the one being worked on included). The queue is in finishing
 * order, so the finished ones are found by halving: a queue no call has cleared holds up to a thousand,
 * and the simulator's queue sample asks every minute.
 */
export function queuedAt(slot: TaskSlot | undefined, at: number): number {
  if (!slot) return 0;
  const queue = slot.queue;
  let lo = 0;
  let hi = queue.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (queue[mid]!.finishAt <= at) lo = mid + 1;
    else hi = mid;
  }
  return queue.length - lo;
}

/** The slot a new task joins: the one with the fewest queued tasks, the lowest number on a tie. */
export function chooseSlot(state: TaskSlots, slots: number, at: number): { slot: number; queued: number } {
  let best = { slot: 0, queued: Number.POSITIVE_INFINITY };
  for (let s = 0; s < Math.max(1, slots); s++) {
    const queued = queuedAt(state.slots[s], at);
    if (queued < best.queued) best = { slot: s, queued };
  }
  return best;
}

export const taskStatusAt = (t: AnalysisTask, at: number): TaskStatus => (t.completed || t.finishAt <= at ? 'completed' : 'queued');

/** Tasks the clock has finished by `at` whose completion no event records yet, in finishing order. */
export function dueTasks(state: TaskSlots, at: number): AnalysisTask[] {
  const out: AnalysisTask[] = [];
  for (const slot of state.strategy ? [...state.slots, state.strategy] : state.slots) {
    for (const q of slot.queue) {
      if (q.finishAt > at) break;
      out.push(taskById(state, q.id)!);
    }
  }
  return out.sort((a, b) => a.finishAt - b.finishAt || Number(a.type === 'strategy') - Number(b.type === 'strategy') || a.slot - b.slot);
}

export class TaskQueueFull extends RateLimited {
  constructor(slots: number) {
    super(
      `The analysis task queue is full: ${TASK_QUEUE_LIMIT} tasks are queued in ${slots === 1 ? 'the slot' : `each of the ${slots} slots`}; ` +
        `a slot works ${TASKS_PER_HOUR} tasks an hour, try again when some have finished`,
    );
  }
}

export class StrategyQueueFull extends RateLimited {
  constructor() {
    super(
      `The strategy task queue is full: ${STRATEGY_QUEUE_LIMIT} strategy tasks are queued; ` +
        `the queue works ${STRATEGY_TASKS_PER_HOUR} an hour, try again when some have finished`,
    );
  }
}

/** Where a new strategy task would stand: its queue's unfinished tasks at `at`, and when it would finish. */
export function strategyPlace(state: TaskSlots, at: number): { queued: number; finishAt: number } {
  return { queued: queuedAt(state.strategy, at), finishAt: Math.max(at, state.strategy?.lastFinish ?? 0) + STRATEGY_TASK_MS };
}

export const taskSlotsDecider: Decider<TaskSlots, TaskCommand, TaskEvent> = {
  // v2: buckets by hash in a list and the order in chunks (v1 snapshots are not read; the log rebuilds).
  name: 'tasks.v2',
  initialState: () => ({ byId: [], order: [], slots: [] }),
  decide(command, state) {
    if (command.type === 'CompleteTasks') {
      return dueTasks(state, command.at).map((t) => {
        const outcome = command.results[t.id];
        if (!outcome) throw new Error(`no result computed for finished task ${t.id}`);
        return { type: 'TaskCompleted', data: { id: t.id, at: t.finishAt, result: outcome.result, message: outcome.message } };
      });
    }
    if (command.type === 'FillTaskQueue') return [{ type: 'TaskQueueFilled', data: { at: command.at, until: command.at + TASK_MS } }];
    if (taskById(state, command.id)) throw new Conflict(`A task with id ${command.id} already exists`);
    oneOf('type', command.taskType, TASK_TYPES);
    if (command.name.trim().length === 0) throw new BadRequest("Missing param 'name'");
    if (command.name.length > TASK_NAME_MAX) throw new BadRequest(`name must be at most ${TASK_NAME_MAX} characters`);
    checkStoredJson('parameters', command.parameters);
    const { id, service, taskType, name, subscriptionId, parameters, identityId, at } = command;
    if (taskType === 'strategy') {
      const { queued, finishAt } = strategyPlace(state, at);
      if (queued >= STRATEGY_QUEUE_LIMIT || (state.fullUntil ?? 0) > at) throw new StrategyQueueFull();
      return [{ type: 'TaskQueued', data: { id, service, type: taskType, name, subscriptionId, parameters, identityId, slot: 0, finishAt, at } }];
    }
    const { slot, queued } = chooseSlot(state, command.slots, command.at);
    if (queued >= TASK_QUEUE_LIMIT || (state.fullUntil ?? 0) > command.at) throw new TaskQueueFull(Math.max(1, command.slots));
    const finishAt = Math.max(command.at, state.slots[slot]?.lastFinish ?? 0) + TASK_MS;
    return [{ type: 'TaskQueued', data: { id, service, type: taskType, name, subscriptionId, parameters, identityId, slot, finishAt, at } }];
  },
  // Written by hand rather than through immer: an account holds thousands of tasks, and copying only
  // the changed containers (one bucket of tasks, the slot list) keeps each event cheap, where immer
  // walks the whole tree per event.
  evolve(s, e) {
    switch (e.type) {
      case 'TaskQueued': {
        const d = e.data;
        const task: AnalysisTask = {
          id: d.id,
          service: d.service,
          type: d.type,
          name: d.name,
          subscriptionId: d.subscriptionId,
          parameters: d.parameters,
          identityId: d.identityId,
          slot: d.slot,
          createdAt: d.at,
          finishAt: d.finishAt,
          result: null,
          message: '',
          completed: false,
        };
        if (d.type === 'strategy') {
          const q = s.strategy ?? { lastFinish: 0, queue: [] };
          const strategy = { lastFinish: d.finishAt, queue: [...q.queue, { id: d.id, finishAt: d.finishAt }] };
          return { ...s, byId: withTask(s.byId, task), order: appendOrder(s.order, d.id), strategy };
        }
        const slots = s.slots.slice();
        while (slots.length <= d.slot) slots.push({ lastFinish: 0, queue: [] });
        const slot = slots[d.slot]!;
        slots[d.slot] = { lastFinish: d.finishAt, queue: [...slot.queue, { id: d.id, finishAt: d.finishAt }] };
        return { ...s, byId: withTask(s.byId, task), order: appendOrder(s.order, d.id), slots };
      }
      case 'TaskCompleted': {
        const d = e.data;
        const t = taskById(s, d.id);
        if (!t) return s;
        const byId = withTask(s.byId, { ...t, completed: true, result: d.result, message: d.message });
        if (t.type === 'strategy') {
          const q = s.strategy!;
          return { ...s, byId, strategy: { lastFinish: q.lastFinish, queue: q.queue.filter((x) => x.id !== d.id) } };
        }
        const slots = s.slots.slice();
        const slot = slots[t.slot]!;
        // Tasks finish in their slot's order: the completed one is almost always at the head.
        const queue = slot.queue[0]?.id === d.id ? slot.queue.slice(1) : slot.queue.filter((q) => q.id !== d.id);
        slots[t.slot] = { lastFinish: slot.lastFinish, queue };
        return { ...s, byId, order: s.order, slots };
      }
      case 'TaskQueueFilled':
        return { ...s, fullUntil: Math.max(s.fullUntil ?? 0, e.data.until) };
      default:
        return s;
    }
  },
};
