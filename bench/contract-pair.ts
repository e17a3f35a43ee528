// Issue 28's paired measure: charged calls through the platform's real handlers (which read their
// parameters through the schemas) on another build and on this one, in one process, interleaved round by
// round; medians of 15 rounds of 3000 calls each. The other build is an extracted tree, e.g.
//   git archive <commit> | tar -x -C /tmp/base && cp -a node_modules /tmp/base/
//   node --conditions=@sdp/source --import tsx bench/contract-pair.ts /tmp/base
// (`npm run bench` runs one build, so it cannot pair two.)
import { fileURLToPath } from 'node:url';

const baseRoot = process.argv[2];
if (!baseRoot) throw new Error('usage: contract-pair.ts <root of the other build>');
const here = fileURLToPath(new URL('..', import.meta.url));
async function setup(root: string) {
  const { createEngine, MemoryEventStore, seededIds } = await import(`${root}/packages/core/src/index.ts`);
  const engine = createEngine({ store: new MemoryEventStore({}), clock: { now: () => Date.parse('2026-03-01T12:00:00Z') }, ids: seededIds(1) });
  await engine.openAccount({ username: 'bench', api_key: 'bench-key-0001', package: { credits_per_hour: 1e12, analyze_credits_per_hour: 1e12 } });
  return engine;
}
const credentials = { username: 'bench', apiKey: 'bench-key-0001' };
const CALLS: [string, Record<string, unknown>][] = [
  ['core.validate', { csdl: 'fb.content contains "coffee"' }],
  ['push.get', { page: '1', per_page: '20', include_finished: '1', order_by: 'created_at', order_dir: 'DESC' }],
  ['historics.get', { max: '20', page: '1' }],
];
const engines = { base: await setup(baseRoot), branch: await setup(here) };
// eslint-disable-next-line @typescript-eslint/no-explicit-any
async function round(engine: any, endpoint: string, params: Record<string, unknown>): Promise<number> {
  const n = 3000;
  const t0 = performance.now();
  for (let i = 0; i < n; i++) {
    const a = await engine.call({ version: '1.5', endpoint, credentials, params });
    if (a.status !== 200) throw new Error(`${endpoint}: ${a.status}`);
  }
  return n / ((performance.now() - t0) / 1000);
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
for (const [endpoint, params] of CALLS) {
  const r: Record<string, number[]> = { base: [], branch: [] };
  for (let i = 0; i < 3; i++) { await round(engines.base, endpoint, params); await round(engines.branch, endpoint, params); }
  for (let i = 0; i < 15; i++) {
    r.base!.push(await round(engines.base, endpoint, params));
    r.branch!.push(await round(engines.branch, endpoint, params));
  }
  const b = median(r.base!), s = median(r.branch!);
  console.log(`${endpoint}: base ${b.toFixed(0)}/s, branch ${s.toFixed(0)}/s, ratio ${(s / b).toFixed(3)}, cost ${(1e6 / s - 1e6 / b).toFixed(2)} us/call`);
}
