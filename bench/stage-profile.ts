/**
 * Per-stage CPU of one `POST /v1.5/validate` on the built server (memory store, access log to a file):
 * bench/http-profile.ts's profiled load, each sample then charged to the request's stage it belongs to.
 *
 *   node --conditions=@sdp/source --import tsx bench/stage-profile.ts [seconds] [memory|sqlite]
 *   SDP_BUILT=DIR node --conditions=@sdp/source --import tsx bench/stage-profile.ts ...   (another checkout's build)
 *
 * A sample goes to the nearest frame on its stack that lies in a stage's code (a native such as
 * JSON.parse goes to the stage that called it); a stack with no project frame at all is the runtime's own
 * work (node:http's parser and sockets, timers) or the collector's. Where `encode` sets the rate-limit
 * headers is told apart from the rest of it by the lines' ticks. A sample that stands for more than
 * three sampling intervals is the process waiting for a CPU (the profiler's clock is the wall's), not
 * work: it counts as three intervals. Figures are µs of sampled CPU per
 * request under the profiler, which costs some of its own: read them as shares of one request, and the
 * ratchet (`npm run bench:ratchet`) for changes.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { root } from './server-process.ts';

interface ProfileNode {
  id: number;
  callFrame: { url: string; functionName: string; lineNumber: number };
  children?: number[];
  positionTicks?: { line: number; ticks: number }[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  window: { from: number; to: number; requests: number };
}

const pkg = (p: string) => new RegExp(`packages/${p}`);
/** Stages in the order of a request; a frame is matched against each in turn and takes the first. */
const STAGES: [string, RegExp][] = [
  ['listener (node-listener: request in, answer out)', pkg('http/(src|dist)/node-listener\\.')],
  ['body (read, UTF-8, JSON parse)', pkg('http/(src|dist)/body\\.')],
  ['credentials (header read, key check)', /packages\/http\/(src|dist)\/credentials\.|packages\/core\/(src|dist)\/accounting\/api-key\./],
  ['parameter schema (contract, params)', /packages\/core\/(src|dist)\/(contract|calls|handling\/params-of)/],
  ['judge (allowance, charge decision)', /packages\/core\/(src|dist)\/(pipeline\/call-judge|accounting|kernel\/(decider|aggregates))/],
  ['append (event store)', /packages\/core\/(src|dist)\/kernel\/|packages\/store-|node_modules\/better-sqlite3/],
  ['rate headers (figures)', pkg('core/(src|dist)/pipeline/rate-figures\\.')],
  ['engine pipeline (lanes, attempt loop)', pkg('core/(src|dist)/pipeline/')],
  ['handler: core.validate (filter compile, cost)', pkg('core/(src|dist)/(filters|handling)/')],
  ['core other', pkg('core/')],
  ['answer encoding (encode, routing, headers)', pkg('http/')],
  ['access log', /packages\/server\/(src|dist)\/access-|node_modules\/(pino|sonic-boom)/],
  ['server other', pkg('server/')],
];
const RATE_HEADERS = 'rate headers (encode\'s five headers)';
const ENCODERS = new Set(['encode', 'encodeCommon']);
const RUNTIME = 'runtime (node:http parser, sockets, timers; no project frame)';

const seconds = process.argv[2] ?? '8';
const store = process.argv[3] ?? 'memory';
// SDP_BUILT=DIR: the built server of another checkout (an older tree, profiled the same way); else this one's.
const builtAt = process.env.SDP_BUILT && process.env.SDP_BUILT !== '1' ? process.env.SDP_BUILT : undefined;
const dir = mkdtempSync(join(tmpdir(), 'sdp-stage-profile-'));
try {
  const kept = join(dir, 'profile.json');
  const r = spawnSync(process.execPath, ['--conditions=@sdp/source', '--import', 'tsx', join(root, 'bench', 'http-profile.ts'), store, 'on', seconds], {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, SDP_BUILT: builtAt ?? '1', KEEP_PROFILE: kept },
  });
  if (r.status !== 0) throw new Error(`http-profile failed: ${r.stdout}${r.stderr}`);
  const profile = JSON.parse(readFileSync(kept, 'utf8')) as Profile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const stageOf = new Map<number, string>();
  const stageOfNode = (id: number): string => {
    const known = stageOf.get(id);
    if (known) return known;
    const node = byId.get(id)!;
    const { url, functionName } = node.callFrame;
    let stage: string | undefined;
    if (functionName === '(garbage collector)') stage = 'garbage collection';
    else if (url) stage = STAGES.find(([, re]) => re.test(url))?.[0];
    const up = parent.get(id);
    stage ??= up === undefined ? RUNTIME : stageOfNode(up);
    stageOf.set(id, stage);
    return stage;
  };
  const { from, to, requests } = profile.window;
  // Per stage: time in its own code, and time in what it called outside the project (node:http's writes,
  // sockets, JSON, V8 builtins), which a change to the stage also moves.
  const totals = new Map<string, { own: number; called: number }>();
  const add = (stage: string, us: number, own = true) => {
    const t = totals.get(stage) ?? { own: 0, called: 0 };
    if (own) t.own += us;
    else t.called += us;
    totals.set(stage, t);
  };
  const inProject = (id: number) => {
    const { url, functionName } = byId.get(id)!.callFrame;
    return functionName === '(garbage collector)' || (!!url && STAGES.some(([, re]) => re.test(url)));
  };
  let busy = 0;
  let at = profile.startTime;
  const intervals = profile.timeDeltas.filter((d) => d > 0).sort((a, b) => a - b);
  const longest = 3 * (intervals[Math.floor(intervals.length / 2)] ?? 1000);
  const selfInWindow = new Map<number, number>();
  for (let i = 0; i < profile.samples.length; i++) {
    const delta = profile.timeDeltas[i] ?? 0;
    at += delta;
    if (at < from || at > to) continue;
    const dt = Math.min(delta, longest);
    const id = profile.samples[i]!;
    const fn = byId.get(id)!.callFrame.functionName;
    if (fn === '(idle)' || fn === '(program)') continue;
    busy += dt;
    const stage = stageOfNode(id);
    add(stage, dt, inProject(id) || stage === RUNTIME);
    selfInWindow.set(id, (selfInWindow.get(id) ?? 0) + dt);
  }
  // encode (and encodeCommon, the common answer's) set the five rate-limit headers inline: their ticks on those lines are that stage's.
  const encodeFile = readFileSync(join(builtAt ?? root, 'packages', 'http', 'dist', 'api-handler.js'), 'utf8').split('\n');
  const rateLines = new Set(encodeFile.flatMap((l, i) => (/RateLimit/.test(l) ? [i + 1] : [])));
  for (const n of profile.nodes) {
    if (!ENCODERS.has(n.callFrame.functionName) || !n.callFrame.url.includes('http/dist/api-handler') || !n.positionTicks) continue;
    const all = n.positionTicks.reduce((s, t) => s + t.ticks, 0);
    const onRate = n.positionTicks.filter((t) => rateLines.has(t.line)).reduce((s, t) => s + t.ticks, 0);
    const share = all > 0 ? onRate / all : 0;
    const us = (selfInWindow.get(n.id) ?? 0) * share;
    add(RATE_HEADERS, us);
    add(stageOfNode(n.id), -us);
  }
  console.log(`${store}, access log on, built server under the profiler: ${requests} requests, ${(busy / requests).toFixed(1)} µs of sampled CPU per request`);
  console.log('');
  console.log('| stage | µs per request | in its own code | in what it called (node, V8 builtins) | share |');
  console.log('|---|--:|--:|--:|--:|');
  const perRequest = (us: number) => (us / requests).toFixed(2);
  for (const [stage, t] of [...totals].sort((a, b) => b[1].own + b[1].called - a[1].own - a[1].called)) {
    console.log(`| ${stage} | ${perRequest(t.own + t.called)} | ${perRequest(t.own)} | ${perRequest(t.called)} | ${(((t.own + t.called) / busy) * 100).toFixed(1)} % |`);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
