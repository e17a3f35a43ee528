// Bytes allocated per call by the function that allocated them (V8's sampling heap profiler, objects
// collected since included), for one build:
//   node bench/heap-sample.mjs BUILD_ROOT [wire|engine]        (IDS=random: the clock's ids; TOP=n rows)
// `wire`: the build's wire handler and engine on the memory store; `engine`: engine.call alone. Seeded ids
// unless IDS=random. Prints the sampled bytes a call, then the functions allocating the most.
import { Session } from 'node:inspector/promises';
import { answererOf, benchEngine, inFlight, loadBuild, validateCall } from './built-validate.mjs';

const [buildRoot = '.', mode = 'engine'] = process.argv.slice(2);
const build = await loadBuild(buildRoot);
const engine = await benchEngine(build, process.env.IDS === 'random' ? build.clock.randomIds() : build.kernel.seededIds(1));
const { call, request } = validateCall();
const handler = build.http.createApiHandler(answererOf(engine), { onAccess: () => {} });
const one = mode === 'engine' ? () => (engine.answer ?? engine.call).call(engine, { ...call }) : () => handler(request);
const run = (n) => inFlight(n, one);
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
