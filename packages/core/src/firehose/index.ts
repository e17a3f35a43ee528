export * from './seeded-random.ts';
export * from './synthetic-interactions.ts';
export * from './firehose.ts';

import type { ReplayTarget } from '../kernel/replay.ts';
import { firehoseDecider } from './firehose.ts';
/** For the replay tool: the firehose switches. */
export const firehoseReplayTarget: ReplayTarget = { decider: firehoseDecider, prefix: 'firehose:' };
