import { limitingDayOf, type LimitingDay } from '../days/limiting-day.ts';
import type { Engine } from '../pipeline/engine.ts';
import type { AccountView } from '../pipeline/operator-commands.ts';
import { capacityStream, dailyAccountLimit, dailyCapacityDecider } from '../recording-index/capacity.ts';
import { queuedAt, taskSlotsDecider, tasksStream } from '../tasks/task-slot.ts';

/**
 * What a read model asks of the engine: states read to their tails (`loadCurrent`), the operator's view
 * of an account, the clock and the limiting day. A read decides nothing, so it writes and guards nothing.
 */
export type EngineReads = Pick<Engine, 'loader' | 'clock' | 'settings' | 'accountView'>;

/** One task slot of an account at an instant. */
export interface TaskQueueFigures {
  slot: number;
  /** Tasks the slot still has to finish (the one being worked on included). */
  queued: number;
  /** When the queued tasks finish, soonest first (at most `FINISHES_SHOWN`). */
  finishes: number[];
}

/** The account's recording capacity on the limiting day of the instant read. */
export interface CapacityToday {
  /** The limiting day's date in its zone. */
  day: string;
  used: number;
  limit: number;
  /** When the day ends (Unix ms). */
  ends: number;
}

/** An account's figures at an instant: its view (package, denial, allowances), task queues and capacity. */
export interface AccountFigures extends AccountView {
  task_queues: TaskQueueFigures[];
  capacity_today: CapacityToday;
}

/** Finishing times shown per slot: a queue holds up to a thousand tasks. */
export const FINISHES_SHOWN = 20;

/**
 * The account's analysis task slots at `at`: `slots` of them (its package's `task_slots`, at least one),
 * and any slot beyond them that still holds tasks queued under a larger package. An account with no
 * tasks, or none at all, has empty slots.
 */
export async function taskQueues(engine: Pick<EngineReads, 'loader'>, username: string, at: number, slots = 1): Promise<TaskQueueFigures[]> {
  const tasks = (await engine.loader.loadCurrent(taskSlotsDecider, tasksStream(username))).state;
  const queues = tasks.slots.map((s, slot): TaskQueueFigures => {
    const queued = queuedAt(s, at);
    // A slot's queue is in finishing order: the tasks still queued are its last `queued`.
    const waiting = s.queue.slice(s.queue.length - queued, s.queue.length - queued + FINISHES_SHOWN);
    return { slot, queued, finishes: waiting.map((q) => q.finishAt) };
  });
  let shown = Math.max(1, slots);
  for (let slot = shown; slot < queues.length; slot++) if (queues[slot]!.queued > 0) shown = slot + 1;
  return Array.from({ length: shown }, (_, slot) => queues[slot] ?? { slot, queued: 0, finishes: [] });
}

/**
 * An account's figures now (or at `at`, on the limiting day `day` of it): what the console's account list
 * and a report show. `NotFound` for an unknown account.
 */
export async function accountFigures(engine: EngineReads, username: string, at = engine.clock.now(), day: LimitingDay = limitingDayOf(at, engine.settings.limitingDay)): Promise<AccountFigures> {
  const view = await engine.accountView(username);
  const capacity = (await engine.loader.loadCurrent(dailyCapacityDecider, capacityStream(username, day.key))).state;
  return {
    ...view,
    task_queues: await taskQueues(engine, username, at, view.package.task_slots),
    capacity_today: { day: day.key, used: capacity.used, limit: dailyAccountLimit(view.package.index_capacity_per_month), ends: day.end },
  };
}
