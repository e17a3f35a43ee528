import { parentPort, workerData } from 'node:worker_threads';
import { runScenario } from './run-scenario.ts';
import type { Scenario } from './scenario.ts';
import type { AccountPackage } from '@sdp/core';

/**
 * One package of a comparison on its own thread: runs the scenario under it, posting progress, then
 * the run's figures (everything but the live engine and ledger, which stay here).
 */
const { scenario, name, fields } = workerData as { scenario: Scenario; name: string; fields: Partial<AccountPackage> };
let last = 0;
const result = await runScenario(scenario, {
  packageOverride: { name, fields },
  progress: (done) => {
    const now = performance.now();
    if (now - last < 100 && done < 1) return;
    last = now;
    parentPort!.postMessage({ type: 'progress', done });
  },
});
const { engine: _engine, ledger: _ledger, ...figures } = result;
parentPort!.postMessage({ type: 'result', figures });
