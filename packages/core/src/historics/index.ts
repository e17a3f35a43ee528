export * from './progress.ts';
export * from './historics-query.ts';
export * from './availability.ts';
export * from './archive.ts';
export * from './handlers.ts';

import type { ReplayTarget } from '../kernel/replay.ts';
import { historicsDecider } from './historics-query.ts';
/** For the replay tool: the streams this module's decider folds. */
export const historicsReplayTarget: ReplayTarget = { decider: historicsDecider, prefix: 'historics:' };
