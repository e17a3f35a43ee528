export * from './task-slot.ts';
export * from './handlers.ts';

import type { ReplayTarget } from '../kernel/replay.ts';
import { taskSlotsDecider } from './task-slot.ts';
/** For the replay tool: the streams this module's decider folds. */
export const tasksReplayTarget: ReplayTarget = { decider: taskSlotsDecider, prefix: 'tasks:' };
