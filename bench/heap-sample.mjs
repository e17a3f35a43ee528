// Bytes allocated per call by the function that allocated them (V8's sampling heap profiler, objects
// collected since included), for one build:
//   node bench/heap-sample.mjs BUILD_ROOT [wire|engine]        (IDS=random: the clock's ids; TOP=n rows)
// `wire`: the build's wire handler and engine on the memory store; `engine`: engine.call alone. Seeded ids
// unless IDS=random. Prints the sampled bytes a call, then the functions allocating the most.
import { Session } from 'node:inspector/promises';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const [buildRoot = '.', mode = 'engine'] = process.argv.slice(2);
const at = (pkg, file = 'index.js') => pathToFileURL(resolve(buildRoot, 'packages', pkg, 'dist', file)).href;
const core = await import(at('core'));
const kernel = core.MemoryEventStore ? core : await import(at('core', 'kernel/index.js'));
const { SystemClock, randomIds } = await import(at('clock'));
const http = await import(at('http'));
const engine = core.createEngine({ store: new kernel.MemoryEventStore({ compactable: core.forgettableCharge }), clock: new SystemClock(), ids: process.env.IDS === 'random' ? randomIds() : kernel.seededIds(1) });
await engine.openAccount({ username: 'bench0', api_key: 'bench-key-0', package: { credits_per_hour: 1e12, analyze_credits_per_hour: 1e12 } });
const call = { version: '1.5', endpoint: 'core.validate', credentials: { username: 'bench0', apiKey: 'bench-key-0' }, params: { csdl: 'interaction.content contains "hello"' }, mediaType: 'application/json' };
const body = new TextEncoder().encode(JSON.stringify(call.params));
const headers = { authorization: 'bench0:bench-key-0', 'content-type': 'application/json', 'content-length': String(body.length) };
const request = { method: 'POST', url: '/v1.5/validate', header: (name) => headers[name], readBody: () => Promise.resolve(body), body };
const handler = http.createApiHandler(engine, { onAccess: () => {} });
const one = mode === 'engine' ? () => engine.call({ ...call }) : () => handler(request);
const run = async (n) => {
  let done = 0;
  const lane = async () => {
    while (done < n) {
      done++;
      await one();
    }
  };
  await Promise.all(Array.from({ length: 50 }, lane));
};
await run(50_000);
const session = new Session();
session.connect();
await session.post('HeapProfiler.startSampling', { samplingInterval: 128, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
const calls = 100_000;
await run(calls);
const { profile } = await session.post('HeapProfiler.stopSampling');
const bytes = new Map();
const walk = (node) => {
  const f = node.callFrame;
  const where = `${f.functionName || '(anonymous)'} ${String(f.url).replace(/.*packages\//, '')}:${f.lineNumber + 1}`;
  if (node.selfSize) bytes.set(where, (bytes.get(where) ?? 0) + node.selfSize);
  for (const child of node.children) walk(child);
};
walk(profile.head);
let total = 0;
for (const b of bytes.values()) total += b;
console.log(`sampled bytes a call: ${(total / calls).toFixed(0)}`);
for (const [where, b] of [...bytes].sort((x, y) => y[1] - x[1]).slice(0, Number(process.env.TOP ?? 25))) console.log(`${(b / calls).toFixed(0).padStart(6)}  ${where}`);
