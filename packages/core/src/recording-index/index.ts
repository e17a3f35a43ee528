export * from './capacity.ts';
export * from './interaction-facts.ts';
export * from './recording-index.ts';

import type { ReplayTarget } from '../kernel/replay.ts';
import { dailyCapacityDecider } from './capacity.ts';
/** For the replay tool: the daily capacity streams. */
export const capacityReplayTarget: ReplayTarget = { decider: dailyCapacityDecider, prefix: 'capacity:' };
