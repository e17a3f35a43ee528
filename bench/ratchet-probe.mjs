// One measure of one build for the ratchet (bench/ratchet.ts), alone in a fresh process:
//   node bench/ratchet-probe.mjs BUILD_ROOT engine|stream|sim
// BUILD_ROOT is a checkout whose packages are built (dist/). Prints one JSON line: the process's CPU
// microseconds over the measured part, the units of work it did, and what that work was.
//
// Plain JavaScript importing each build's dist by path: both builds then run the same probe the same way,
// neither through tsx, and a build's @sdp imports resolve to its own packages (its node_modules/@sdp).
// A fresh process per measure, because in one process the second build would run on code the first had
// already made polymorphic.
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const [buildRoot, row] = process.argv.slice(2);
if (!buildRoot || !row) throw new Error('usage: ratchet-probe.mjs BUILD_ROOT engine|stream|sim');
const at = (pkg, file = 'index.js') => pathToFileURL(resolve(buildRoot, 'packages', pkg, 'dist', file)).href;
const core = await import(at('core'));
// The store and ids moved to the core's kernel entry after some builds: found where each build has them.
const kernel = core.MemoryEventStore ? core : await import(at('core', 'kernel/index.js'));
const { ManualClock } = await import(at('clock'));

const cpuNow = () => {
  const u = process.cpuUsage();
  return u.user + u.system;
};
const print = (o) => console.log(JSON.stringify(o));

/** Opens one account whose allowances no probe reaches: every call measured is a charged 200. */
async function openBench(engine, username, apiKey, extra = {}) {
  await engine.openAccount({ username, api_key: apiKey, package: { credits_per_hour: 1e12, analyze_credits_per_hour: 1e12, ...extra } });
}

if (row === 'engine') {
  // core.validate through the platform's own handlers on the server's memory store (charges forgotten
  // under snapshots): judge, charge, append and the filter's compile, no HTTP.
  const clock = new ManualClock(Date.parse('2026-01-05T08:00:00Z'));
  const engine = core.createEngine({ store: new kernel.MemoryEventStore({ compactable: core.forgettableCharge }), clock, ids: kernel.seededIds(1) });
  await openBench(engine, 'bench', 'bench-key-0001');
  const call = { version: '1.5', endpoint: 'core.validate', credentials: { username: 'bench', apiKey: 'bench-key-0001' }, params: { csdl: 'interaction.content contains "hello"' } };
  const n = Number(process.env.RATCHET_ENGINE_CALLS ?? 100_000);
  for (let i = 0; i < n / 4; i++) await engine.call(call);
  const c0 = cpuNow();
  for (let i = 0; i < n; i++) {
    const a = await engine.call(call);
    if (a.status !== 200) throw new Error(`engine: status ${a.status}`);
  }
  print({ cpuUs: cpuNow() - c0, units: n, what: 'charged core.validate calls' });
} else if (row === 'stream') {
  await streamProbe();
} else if (row === 'sim') {
  await simProbe();
} else {
  throw new Error(`unknown row ${row}`);
}

/**
 * Saturated fan-out as bench/stream.bench.ts measures it: 100 WebSocket connections each subscribed to the
 * same 10 hashes, interactions ingested in batches of 100 as fast as ingestion takes them, each matching one
 * hash (so it goes to 100 connections). The clients parse in this process too: the same in both builds.
 */
async function streamProbe() {
  const { createServer } = await import('node:http');
  const { default: WebSocket } = await import('ws');
  const { createNodeListener } = await import(at('http'));
  const { StreamHost } = await import(at('stream'));
  const CONNECTIONS = 100;
  const HASHES = 10;
  const BATCH = 100;
  const batches = Number(process.env.RATCHET_STREAM_BATCHES ?? 30);
  const clock = new ManualClock(Date.parse('2026-03-02T08:05:37Z'));
  const engine = core.createEngine({ store: new kernel.MemoryEventStore(), clock, ids: kernel.seededIds(5), yieldTurn: () => new Promise((r) => setImmediate(r)) });
  const credentials = { username: 'ada', apiKey: 'ada-key-0000000000000001' };
  await openBench(engine, 'ada', credentials.apiKey, { stream_connections: CONNECTIONS });
  const call = async (endpoint, params, extra = {}) => {
    const a = await engine.call({ version: '1.5', endpoint, credentials, params, mediaType: 'application/json', ...extra });
    if (a.status >= 300) throw new Error(`${endpoint}: ${a.status} ${JSON.stringify(a.body)}`);
    return a.body;
  };
  const hashes = [];
  for (let h = 0; h < HASHES; h++) hashes.push((await call('core.compile', { csdl: `fb.content contains "word${h}"` })).hash);
  const source = (await call('source.create', { source_type: 'twitter_gnip', name: 'bench', resources: [{ parameters: { mapping: 'gnip_1' } }] })).id;
  await call('source.start', { id: source });
  let serial = 0;
  const ingestBatch = async () => {
    const lines = [];
    for (let i = 0; i < BATCH; i++, serial++) lines.push(JSON.stringify({ interaction: { id: `i${serial}`, content: `word${serial % HASHES} and more` }, fb: { content: `word${serial % HASHES} and more` } }));
    await call('ingest', { source_id: source }, { body: lines.join('\n') });
  };
  const server = createServer(createNodeListener(engine));
  const streams = new StreamHost({ engine, bufferBytes: 64 * 1024 * 1024 }).attach(server);
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address();
  let delivered = 0;
  const sockets = [];
  for (let c = 0; c < CONNECTIONS; c++) {
    const ws = new WebSocket(`ws://127.0.0.1:${port}/multi?username=ada&api_key=${credentials.apiKey}`);
    await new Promise((ok, fail) => {
      ws.once('open', ok);
      ws.once('error', fail);
    });
    let acks = 0;
    await new Promise((subscribed) => {
      ws.on('message', (data) => {
        const m = JSON.parse(String(data));
        if (m.data) delivered++;
        else if (m.status === 'success' && ++acks === HASHES) subscribed();
      });
      for (const hash of hashes) ws.send(JSON.stringify({ action: 'subscribe', hash }));
    });
    sockets.push(ws);
  }
  const settle = async (want) => {
    const from = performance.now();
    while (delivered < want && performance.now() - from < 120_000) await new Promise((r) => setTimeout(r, 2));
  };
  // Warm-up: a tenth of the run, delivered before the measure starts.
  for (let b = 0; b < Math.ceil(batches / 10); b++) await ingestBatch();
  await settle(serial * CONNECTIONS);
  const from = delivered;
  const c0 = cpuNow();
  for (let b = 0; b < batches; b++) await ingestBatch();
  await settle(serial * CONNECTIONS);
  const cpuUs = cpuNow() - c0;
  const units = delivered - from;
  if (units !== batches * BATCH * CONNECTIONS) throw new Error(`stream: ${units} delivered of ${batches * BATCH * CONNECTIONS}`);
  for (const ws of sockets) ws.terminate();
  await streams.close();
  await new Promise((r) => server.close(() => r()));
  print({ cpuUs, units, what: 'interactions delivered to subscribers, ingestion included' });
}

/**
 * examples/agency-week.yaml of the working tree (RATCHET_SCENARIO), cut to its first RATCHET_SIM_DURATION
 * (default 2d), under its standard package on this thread, as one package of `sdp sim` runs. Both builds
 * run the same text (`commonGround`), so the work is the same.
 */
async function simProbe() {
  const sim = await import(at('sim'));
  const file = process.env.RATCHET_SCENARIO ?? join(process.cwd(), 'examples', 'agency-week.yaml');
  if (!existsSync(file)) throw new Error(`sim: no scenario at ${file}`);
  const text = commonGround(readFileSync(file, 'utf8')).replace(/^duration: .*$/m, `duration: ${process.env.RATCHET_SIM_DURATION ?? '2d'}`);
  const scenario = sim.parseScenario(text, 'agency-week.yaml');
  const standard = scenario.packages.standard;
  const c0 = cpuNow();
  const r = await sim.runScenario(scenario, { packageOverride: { name: 'standard', fields: standard } });
  print({ cpuUs: cpuNow() - c0, units: r.simulatedCalls, what: 'simulated calls', wallMs: r.wallMs });
}

/**
 * The scenario as every build since the first baseline reads it the same way: packages' prices (read by the
 * comparison, never by a run) and stream actors (a flat charge in older builds, live connections in later
 * ones: not the same work) are left out.
 */
function commonGround(text) {
  const [head, actors = ''] = text.split(/^actors:\n/m);
  const kept = actors.split(/^(?=  - name: )/m).filter((block) => !/^\s+kind: stream\s*$/m.test(block));
  return `${head.replace(/,\s*price: \{[^}]*\}/g, '')}actors:\n${kept.join('')}`;
}
