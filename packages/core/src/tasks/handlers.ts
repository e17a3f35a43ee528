import { requireService } from '../accounting/package-service.ts';
import { analysisWindow, checkAnalysisTargets, validateAnalysisRequest } from '../analysis/analysis-request.ts';
import { queryFilterOf, runAnalysis } from '../analysis/run-analysis.ts';
import { BadRequest, DomainError, NotFound, UnsupportedMediaType } from '../calls/errors.ts';
import { paramsOf } from '../handling/params-of.ts';
import type { Account } from '../accounting/account.ts';
import type { CallContext, HandlerTable } from '../handling/handler.ts';
import type { UnitOfWork } from '../kernel/unit-of-work.ts';
import { recordingIndexOf, type RecordingIndex } from '../recording-index/recording-index.ts';
import { pageEnvelope, pageOf, readPaging } from '../calls/paging.ts';
import { recordingsDecider, recordingsStream } from '../recordings/recording.ts';
import {
  STRATEGY_QUEUE_LIMIT,
  TASK_QUEUE_LIMIT,
  TASK_TYPES,
  chooseSlot,
  dueTasks,
  queuedAt,
  taskSlotsDecider,
  allTasks,
  taskById,
  taskStatusAt,
  tasksStream,
  type AnalysisTask,
  type TaskOutcome,
  type TaskSlots,
} from './task-slot.ts';
import { epochSeconds } from '../calls/epoch.ts';
import { runStrategy, strategyOf, strategyWindow, validateStrategyRequest } from './strategy.ts';
import { freshId } from '../calls/fresh-id.ts';
import { own } from '../calls/input-limits.ts';

const stream = (ctx: CallContext): string => tasksStream(ctx.account.username);

/** `result` is left out of lists (`null`), as the service answered them. */
export function taskView(t: AnalysisTask, now: number, withResult: boolean): Record<string, unknown> {
  const status = taskStatusAt(t, now);
  const done = status === 'completed';
  return {
    id: t.id,
    identity_id: t.identityId,
    subscription_id: t.subscriptionId,
    name: t.name,
    type: t.type,
    parameters: t.parameters,
    result: withResult && done ? t.result : null,
    usage: t.type === 'strategy' ? { strategy_tasks: 1 } : { analysis_tasks: 1 },
    steps_completed: done ? 1 : null,
    total_steps: done ? 1 : null,
    message: done ? t.message : '',
    status,
    created_at: epochSeconds(t.createdAt),
    updated_at: epochSeconds(done ? t.finishAt : t.createdAt),
  };
}

/** What completing tasks needs: a call's context has it, and so has an operator's unit of work. */
export interface TaskContext {
  uow: UnitOfWork;
  recordingIndex: RecordingIndex;
  account: Account;
  now: number;
}

/** The result of a finished task, computed as of its finish over the recording it names. */
export async function taskOutcome(ctx: TaskContext, t: AnalysisTask): Promise<TaskOutcome> {
  try {
    if (t.type === 'strategy') {
      const req = validateStrategyRequest(t.service, t.parameters);
      return { result: await runStrategy({ recordingIndex: ctx.recordingIndex, now: t.finishAt, account: ctx.account }, t.service, t.subscriptionId, req), message: '' };
    }
    const request = validateAnalysisRequest(t.parameters);
    return { result: await runAnalysis({ recordingIndex: ctx.recordingIndex, now: t.finishAt, account: ctx.account }, t.subscriptionId, request), message: '' };
  } catch (error) {
    if (error instanceof DomainError && error.status < 500) return { result: null, message: error.message };
    throw error;
  }
}

/**
 * Records the tasks the clock has finished, with their results: every task call does it before it
 * answers, and a clock that moves in steps (the operator's) may do it at each step.
 */
export async function completeDueTasks(ctx: TaskContext): Promise<TaskSlots> {
  const stream = tasksStream(ctx.account.username);
  const state = await ctx.uow.load(taskSlotsDecider, stream);
  const due = dueTasks(state, ctx.now);
  if (due.length === 0) return state;
  const results: Record<string, TaskOutcome> = {};
  for (const t of due) results[t.id] = await taskOutcome(ctx, t);
  return (await ctx.uow.execute(taskSlotsDecider, stream, { type: 'CompleteTasks', at: ctx.now, results })).state;
}

const settle = (ctx: CallContext): Promise<TaskSlots> => completeDueTasks({ uow: ctx.uow, account: ctx.account, now: ctx.now, recordingIndex: recordingIndexOf(ctx) });

function isJson(mediaType: string | undefined): boolean {
  return mediaType !== undefined && mediaType.split(';')[0]!.trim().toLowerCase() === 'application/json';
}

/**
 * Strategy tasks were added with 1.5 (the typed task paths name them from then); before it a task is an
 * analysis, as those versions' clients knew.
 */
export { STRATEGY_TASKS_FROM } from '../contract/params.ts';

export const taskHandlers: HandlerTable = {
  async 'tasks.create'(ctx) {
    if (!isJson(ctx.call.mediaType)) {
      throw new UnsupportedMediaType(`Tasks are created with a JSON body (application/json), not ${ctx.call.mediaType ?? 'no media type'}`);
    }
    const p = paramsOf(ctx, 'tasks.create');
    const service = requireService(ctx, p.service);
    const { name, subscription_id: subscriptionId, parameters, type: taskType } = p;
    const recording = own((await ctx.uow.load(recordingsDecider, recordingsStream(ctx.account.username))).byId, subscriptionId);
    if (!recording) throw new BadRequest(`subscription_id ${subscriptionId} names no recording of this account`);
    if (recording.service !== service) throw new BadRequest(`subscription_id ${subscriptionId} records ${recording.service}, not ${service}`);
    // Everything an analysis or a strategy can refuse is judged now, so a queued task always runs.
    if (p.type === 'strategy') strategyWindow(strategyOf(service, p.parameters), ctx.now);
    else {
      checkAnalysisTargets(p.parameters.parameters, 'parameters.parameters');
      analysisWindow(p.parameters, ctx.now);
      queryFilterOf(p.parameters);
    }

    const before = await settle(ctx);
    const id = freshId(ctx.ids, 40, (x) => taskById(before, x) !== undefined);
    const { slot } = chooseSlot(before, ctx.account.package.task_slots, ctx.now);
    const { state } = await ctx.uow.execute(taskSlotsDecider, stream(ctx), {
      type: 'QueueTask',
      id,
      service,
      taskType,
      name,
      subscriptionId,
      parameters,
      identityId: ctx.identityId,
      slots: ctx.account.package.task_slots,
      at: ctx.now,
    });
    const headers: Record<string, string> =
      taskType === 'strategy'
        ? { 'X-Strategy-Tasks-Queued': String(queuedAt(state.strategy, ctx.now)), 'X-Strategy-Tasks-Queue-Limit': String(STRATEGY_QUEUE_LIMIT) }
        : { 'X-Analysis-Tasks-Queued': String(queuedAt(state.slots[slot], ctx.now)), 'X-Analysis-Tasks-Queue-Limit': String(TASK_QUEUE_LIMIT) };
    return { body: { id }, headers };
  },

  async 'tasks.list'(ctx) {
    const p = paramsOf(ctx, 'tasks.list');
    const service = requireService(ctx, p.service);
    const { type, status } = p;
    const paging = readPaging(p);
    const state = await settle(ctx);
    const tasks = allTasks(state)
      .filter((t) => t.service === service && (type === undefined || t.type === type) && (status === undefined || taskStatusAt(t, ctx.now) === status));
    const shown = pageOf(tasks, paging);
    return { body: pageEnvelope(shown, 'tasks', shown.items.map((t) => taskView(t, ctx.now, false))) };
  },

  async 'tasks.get'(ctx) {
    const p = paramsOf(ctx, 'tasks.get');
    const service = requireService(ctx, p.service);
    const { type, id } = p;
    const state = await settle(ctx);
    const t = taskById(state, id);
    if (!t || t.service !== service || (type !== undefined && t.type !== type)) throw new NotFound('Task not found');
    return { body: taskView(t, ctx.now, true) };
  },
};
