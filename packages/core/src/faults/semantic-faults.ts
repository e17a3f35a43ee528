import { accountDecider, accountStream } from '../accounting/account.ts';
import { creditsDecider, creditsStream, figuresOf, windowAt } from '../accounting/credit-window.ts';
import { limitingDayOf } from '../days/limiting-day.ts';
import type { EngineServices } from '../handling/handler.ts';
import { BadRequest, NotFound } from '../calls/errors.ts';
import type { UnitOfWork } from '../kernel/unit-of-work.ts';
import { capacityStream, dailyAccountLimit, dailyCapacityDecider } from '../recording-index/capacity.ts';
import { taskSlotsDecider, tasksStream, TASK_MS } from '../tasks/task-slot.ts';

/**
 * Semantic faults: states a client developer wants to meet on purpose, reached through the same
 * aggregates that decide them in real use, so the next call answers exactly as the real limit would.
 */
export const SEMANTIC_FAULTS = ['exhaust_allowance', 'fill_task_queue', 'reach_recording_capacity'] as const;
export type SemanticFault = (typeof SEMANTIC_FAULTS)[number];

async function existing(uow: UnitOfWork, username: string) {
  const account = await uow.load(accountDecider, accountStream(username));
  if (!account.exists) throw new NotFound(`No account named ${username}`);
  return account;
}

/** Spends what is left of an allowance's current window (opening one if none is open). */
export async function exhaustAllowance(engine: EngineServices, username: string, allowance: 'general' | 'analyze' = 'general') {
  return engine.command(async (uow) => {
    const account = await existing(uow, username);
    const limit = allowance === 'general' ? account.package.credits_per_hour : account.package.analyze_credits_per_hour;
    const credits = await uow.load(creditsDecider, creditsStream(username));
    const remaining = figuresOf(windowAt(credits, allowance, uow.now), limit, 0, uow.now).remaining;
    const { state } = await uow.execute(creditsDecider, creditsStream(username), {
      type: 'ChargeCredits',
      at: uow.now,
      endpoint: 'fault.exhaust_allowance',
      lines: [{ key: allowance, limit, cost: remaining }],
    });
    const f = figuresOf(windowAt(state, allowance, uow.now), limit, 0, uow.now);
    return { allowance, limit: f.limit, remaining: f.remaining, reset: f.reset };
  });
}

/** The account's task queue answers "full" for as long as one task takes (22.5 s of clock time). */
export async function fillTaskQueue(engine: EngineServices, username: string) {
  return engine.command(async (uow) => {
    await existing(uow, username);
    await uow.execute(taskSlotsDecider, tasksStream(username), { type: 'FillTaskQueue', at: uow.now });
    return { full_until: uow.now + TASK_MS };
  });
}

/** Today's account recording capacity counts as used: recordings keep nothing more until the next limiting day. */
export async function reachRecordingCapacity(engine: EngineServices, username: string) {
  return engine.command(async (uow) => {
    const account = await existing(uow, username);
    const day = limitingDayOf(uow.now, engine.settings.limitingDay);
    const accountLimit = dailyAccountLimit(account.package.index_capacity_per_month);
    await uow.execute(dailyCapacityDecider, capacityStream(username, day.key), { type: 'ReachCapacity', day: day.key, accountLimit });
    return { day: day.key, until: day.end };
  });
}

/** Applies one semantic fault by name (the operator's `POST /_admin/faults/effects`). */
export async function applySemanticFault(engine: EngineServices, effect: unknown, username: unknown, allowance?: unknown): Promise<Record<string, unknown>> {
  if (typeof username !== 'string' || username === '') throw new BadRequest('username is required (a string)');
  if (allowance !== undefined && allowance !== 'general' && allowance !== 'analyze') throw new BadRequest('allowance must be "general" or "analyze"');
  switch (effect) {
    case 'exhaust_allowance':
      return { effect, username, ...(await exhaustAllowance(engine, username, allowance as 'general' | 'analyze' | undefined)) };
    case 'fill_task_queue':
      return { effect, username, ...(await fillTaskQueue(engine, username)) };
    case 'reach_recording_capacity':
      return { effect, username, ...(await reachRecordingCapacity(engine, username)) };
    default:
      throw new BadRequest(`effect must be one of ${SEMANTIC_FAULTS.join(', ')}`);
  }
}
