export * from './recording.ts';
export * from './recording-view.ts';
export * from './handlers.ts';

import type { ReplayTarget } from '../kernel/replay.ts';
import { recordingsDecider } from './recording.ts';
/** For the replay tool: the streams this module's decider folds. */
export const recordingsReplayTarget: ReplayTarget = { decider: recordingsDecider, prefix: 'recordings:' };
