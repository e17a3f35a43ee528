export * from './identity.ts';
export * from './identity-access.ts';
export * from './handlers.ts';

import type { ReplayTarget } from '../kernel/replay.ts';
import { identitiesDecider } from './identity.ts';
/** For the replay tool: the streams this module's decider folds. */
export const identitiesReplayTarget: ReplayTarget = { decider: identitiesDecider, prefix: 'identities:' };
