// One core build's charged call alone in a process, for old-against-new comparisons on a shared machine:
//   node bench/engine-solo.mjs [path to a built @sdp/core's dist/index.js]   (COMPACT=1: the server's store)
// Prints CPU microseconds per charged `engine.call` over N calls (default 400,000) after 50,000 warm-up
// calls. Alternate old and new builds in separate processes a few times and compare medians.
import { ManualClock } from '@sdp/clock';
import { pathToFileURL } from 'node:url';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

const core = await import(process.argv[2] ? pathToFileURL(resolve(process.argv[2])).href : '@sdp/core');
// The store and the ports: in the core's kernel entry where it has one (`@sdp/core/kernel`), else in its main entry.
const kernelBeside = process.argv[2] && join(dirname(resolve(process.argv[2])), 'kernel', 'index' + (process.argv[2].endsWith('.ts') ? '.ts' : '.js'));
const kernel = core.MemoryEventStore ? core : await import(process.argv[2] ? (existsSync(kernelBeside) ? pathToFileURL(kernelBeside).href : '@sdp/core/kernel') : '@sdp/core/kernel');
const compact = !!process.env.COMPACT;
const clock = new ManualClock(Date.parse('2026-01-01T00:00:00Z'));
const store = new kernel.MemoryEventStore(compact ? { compactable: core.forgettableCharge } : {});
const engine = new core.Engine({ store, clock, ids: kernel.seededIds(1), handlers: { 'core.balance': () => ({ body: {} }) } });
await engine.openAccount({ username: 'bench', api_key: 'bench-key-0001', package: { credits_per_hour: 1e12 } });
const call = { version: '1.5', endpoint: 'core.balance', credentials: { username: 'bench', apiKey: 'bench-key-0001' }, params: {} };
const N = Number(process.env.N ?? 400_000);
for (let i = 0; i < 50_000; i++) await engine.call(call);
const c0 = process.cpuUsage();
for (let i = 0; i < N; i++) {
  const a = await engine.call(call);
  if (a.status !== 200) throw new Error(`status ${a.status}`);
}
const c = process.cpuUsage(c0);
console.log(((c.user + c.system) / N).toFixed(3));
