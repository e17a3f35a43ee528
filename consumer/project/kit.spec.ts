import { test } from '@fast-check/vitest';
import { createEngine, type EndpointId } from '@sdp/core';
import { engineCommands, runEngineModel } from '@sdp/testing';

// Our package: a small hourly allowance and a tighter analyze allowance.
const ourPackage = { credits_per_hour: 250, analyze_credits_per_hour: 75 };
// The costs our clients budget for; every answer's X-RateLimit-Cost must match.
const ourCosts: Partial<Record<EndpointId, number>> = { 'core.validate': 5, 'core.compile': 5, 'push.get': 1, 'push.pull': 0, 'insight.analyze': 25 };

test.prop([engineCommands({ endpoints: Object.keys(ourCosts) as EndpointId[] })], { numRuns: 50 })(
  'our package never over-admits, never goes negative and resets on the minute mark',
  (commands) => runEngineModel({ package: ourPackage, costs: ourCosts, engine: (ports) => createEngine(ports) }, commands),
);
