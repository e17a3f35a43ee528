export * from './preview-analyses.ts';
export * from './preview.ts';
export * from './handlers.ts';

import type { ReplayTarget } from '../kernel/replay.ts';
import { previewsDecider } from './preview.ts';
/** For the replay tool: the streams this module's decider folds. */
export const previewsReplayTarget: ReplayTarget = { decider: previewsDecider, prefix: 'previews:' };
