/**
 * Where the server's time goes under the http benchmark's load: `sdp serve` run with `node --cpu-prof`,
 * loaded by autocannon (50 connections, `POST /v1.5/validate`, one account), then the profile's busy
 * time (idle left out) summed by where the code lives, and the functions taking the most self time.
 *
 *   node --conditions=@sdp/source --import tsx bench/http-profile.ts [memory|sqlite] [on|off] [seconds]
 *   node --conditions=@sdp/source --import tsx bench/http-profile.ts peer:bare - [seconds]
 *
 * `peer:NAME` profiles `bench/peers/NAME.mjs` under the same load instead (bare, engine-direct, ...), to
 * set the project's shares beside a baseline's.
 *
 * With `SDP_BUILT=1` the server runs from built JavaScript (built first) instead of through tsx; with
 * `SDP_BUILT=DIR`, from another checkout's build (an older tree, to compare with this one).
 *
 * Not a `*.bench.ts`: a profiled server is slower, so its figures are shares, not throughput.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SDP_SERVE, SDP_SERVE_BUILT, autocannon, buildWorkspace, hasTaskset, root, startServerProcess, stopServerProcess } from './server-process.ts';

interface ProfileNode {
  id: number;
  callFrame: { url: string; functionName: string; lineNumber: number };
  children?: number[];
}

const [storeWord = 'memory', log = 'on', secondsText = '10'] = process.argv.slice(2);
const KEY = 'bench-key-00000000000000000000001';

/** Where a function's code lives, by its source URL (first match wins). */
const PLACES: [string, RegExp][] = [
  ['sdp http', /packages\/http\//],
  ['sdp server', /packages\/server\//],
  ['sdp core engine', /packages\/core\/(src|dist)\/engine\//],
  ['sdp core (accounting, filters, ...)', /packages\/core\//],
  ['sdp stores', /packages\/store-/],
  ['pino + sonic-boom', /node_modules\/(pino|sonic-boom|thread-stream|fast-redact|quick-format)/],
  ['immer', /node_modules\/immer/],
  ['better-sqlite3', /node_modules\/better-sqlite3/],
  ['node http', /node:_http|node:internal\/http/],
  ['node streams', /node:internal\/streams|node:stream/],
  ['node net', /node:net|node:internal\/stream_base|node:internal\/net/],
  ['node other', /^node:/],
];

function placeOf(node: ProfileNode): string {
  const { url, functionName } = node.callFrame;
  if (!url) return functionName.startsWith('(') ? functionName : `native ${functionName || '(anonymous)'}`;
  for (const [name, re] of PLACES) if (re.test(url)) return name;
  return 'other JavaScript';
}

if (hasTaskset) spawnSync('taskset', ['-a', '-cp', '1', String(process.pid)]);
const dir = mkdtempSync(join(tmpdir(), 'sdp-http-profile-'));
try {
  const accounts = join(dir, 'accounts.json');
  writeFileSync(accounts, JSON.stringify([{ username: 'bench0', api_key: `${KEY}0`, package: { credits_per_hour: 1e12, analyze_credits_per_hour: 1e12 } }]));
  const store = storeWord === 'sqlite' ? `sqlite:${join(dir, 'one.db')}` : 'memory:';
  // SDP_BUILT=1: the built JavaScript (`npm run build` first), as the installed `sdp` bin runs.
  const builtAt = process.env.SDP_BUILT && process.env.SDP_BUILT !== '1' ? process.env.SDP_BUILT : undefined;
  if (process.env.SDP_BUILT && !builtAt) buildWorkspace();
  const serve = builtAt ? [join(builtAt, SDP_SERVE_BUILT[0]!), ...SDP_SERVE_BUILT.slice(1)] : process.env.SDP_BUILT ? SDP_SERVE_BUILT : SDP_SERVE;
  const peer = storeWord.startsWith('peer:') ? join(root, 'bench', 'peers', `${storeWord.slice(5)}.mjs`) : undefined;
  const args = peer
    ? // A peer has no SIGTERM handler of its own; exiting normally is what makes --cpu-prof write the profile.
      ['--cpu-prof', `--cpu-prof-dir=${dir}`, '--import', "data:text/javascript,process.on('SIGTERM',()=>process.exit(0))", peer]
    : ['--cpu-prof', `--cpu-prof-dir=${dir}`, ...serve, '--store', store, '--accounts', accounts, '--access-log', log === 'on' ? join(dir, 'access.log') : 'off'];
  const server = await startServerProcess(process.execPath, args, 0);
  const load = (duration: number) =>
    autocannon({
      url: server.url + '/v1.5/validate',
      method: 'POST',
      headers: { Authorization: `bench0:${KEY}0`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ csdl: 'interaction.content contains "hello"' }),
      connections: 50,
      duration,
    });
  await load(2);
  // Only the samples taken during the measured load count (not start-up, warm-up or shutdown); V8's
  // profile clock and hrtime both read the monotonic clock, in microseconds here.
  const from = Number(process.hrtime.bigint() / 1000n);
  const result = await load(Number(secondsText));
  const to = Number(process.hrtime.bigint() / 1000n);
  await stopServerProcess(server.child);
  const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'))!;
  const profile = JSON.parse(readFileSync(join(dir, file), 'utf8')) as { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[]; startTime: number };
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const places = new Map<string, number>();
  const functions = new Map<string, number>();
  let busy = 0;
  let at = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    const dt = profile.timeDeltas[i] ?? 0;
    at += dt;
    if (at < from || at > to) continue;
    const node = byId.get(profile.samples[i]!)!;
    if (node.callFrame.functionName === '(idle)') continue;
    busy += dt;
    const place = placeOf(node);
    places.set(place, (places.get(place) ?? 0) + dt);
    const fn = `${node.callFrame.functionName || '(anonymous)'} ${node.callFrame.url.split('/').slice(-2).join('/')}:${node.callFrame.lineNumber + 1}`;
    functions.set(fn, (functions.get(fn) ?? 0) + dt);
  }
  // Shares, and µs per request: the latter compare across runs of different peers and loads.
  const pct = (t: number) => `${((t / busy) * 100).toFixed(1).padStart(5)} %  ${(t / result.requests.total).toFixed(2).padStart(6)} µs`;
  console.log(`${storeWord}${peer ? '' : `, log ${log}`}: ${Math.round(result.requests.average)} req/s under the profiler, ${(busy / result.requests.total).toFixed(1)} µs busy per request`);
  console.log('\nbusy time by place:');
  for (const [name, t] of [...places].sort((a, b) => b[1] - a[1])) console.log(`  ${pct(t)}  ${name}`);
  console.log('\nfunctions by self time:');
  for (const [name, t] of [...functions].sort((a, b) => b[1] - a[1]).slice(0, 40)) console.log(`  ${pct(t)}  ${name}`);
  // The whole profile, with the measured window and its request count to read it by.
  if (process.env.KEEP_PROFILE) writeFileSync(process.env.KEEP_PROFILE, JSON.stringify({ ...profile, window: { from, to, requests: result.requests.total } }));
} finally {
  rmSync(dir, { recursive: true, force: true });
}
