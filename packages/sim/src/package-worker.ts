import { parentPort, workerData } from 'node:worker_threads';
import { runScenario } from './run-scenario.ts';
import type { Scenario } from './scenario.ts';
import type { PackageJob } from './package-pool.ts';

/**
 * Runs of one scenario on their own thread, one job at a time (a package of a comparison, a probe of
 * the allowance search): each posts progress, then the run's figures (everything but the live engine
 * and ledger, which stay here). The thread lives until the pool that started it closes it.
 */
const { scenario } = workerData as { scenario: Scenario };
parentPort!.on('message', async (job: PackageJob) => {
  try {
    let last = 0;
    const result = await runScenario(scenario, {
      packageOverride: { name: job.name, fields: job.fields },
      progress: (done) => {
        const now = performance.now();
        if (now - last < 100 && done < 1) return;
        last = now;
        parentPort!.postMessage({ type: 'progress', job: job.id, done });
      },
    });
    const { engine: _engine, ledger: _ledger, ...figures } = result;
    parentPort!.postMessage({ type: 'result', job: job.id, figures });
  } catch (error) {
    parentPort!.postMessage({ type: 'failed', job: job.id, message: (error as Error).stack ?? String(error) });
  }
});
