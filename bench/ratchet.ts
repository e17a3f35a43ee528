/**
 * `npm run bench:ratchet`: the working tree against the build named in bench/baseline.json, row by row, in
 * alternating rounds of one run, as CPU time per unit of work. A row more than 3 % slower than the
 * baseline fails the run (exit 1). docs/performance.md says what each row measures and how to read it.
 *
 *   npm run bench:ratchet [-- --only REGEX] [--rounds N (7)] [--json FILE] [--no-fail] [--advance]
 *
 * --advance: after a run in which no row was slower, on a clean tree whose HEAD descends from the
 * baseline, bench/baseline.json names HEAD: the baseline only moves forward, and only to a build that was
 * measured no slower.
 *
 * The baseline is checked out as a git worktree under node_modules/.cache/sdp/ratchet/ (ignored, and
 * kept: its build is reused by later runs) and built there with its own `npm run build`. It installs
 * nothing: third-party packages resolve up the directory tree to this clone's node_modules, and the
 * baseline's @sdp packages are linked to its own. Where the baseline declared other dependencies than
 * the working tree, the run says so (it runs on the working tree's).
 *
 * CPU time, not throughput: on a machine shared with other work, requests per second move with the
 * neighbours' load, while the CPU a server spends on a request moves much less. Both builds are measured
 * moments apart in every round, the order alternating, and each row's ratio is the median of the rounds'
 * ratios (a paired figure: steadier than the ratio of two medians).
 */
import { execFileSync, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { benchAccountsFile, hasTaskset, median, processCpu, root, startServerProcess, stopServerProcess, validateLoad } from './server-process.ts';

const args = process.argv.slice(2);
const option = (name: string): string | undefined => {
  const at = args.indexOf(name);
  return at >= 0 ? args[at + 1] : undefined;
};
const ROUNDS = Number(option('--rounds') ?? process.env.RATCHET_ROUNDS ?? 7);
const LOAD_SECONDS = Number(process.env.RATCHET_LOAD_SECONDS ?? 3);
/** More `sdp serve` options for both builds' servers in the HTTP rows (`--admin-token t`: with the request journal). */
const SERVE_ARGS = (process.env.RATCHET_SERVE_ARGS ?? '').split(' ').filter(Boolean);
const TOLERANCE = 0.03;
const only = option('--only') ? new RegExp(option('--only')!) : undefined;
const jsonFile = option('--json');

const git = (...a: string[]): string => execFileSync('git', a, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
const say = (line: string): void => void process.stderr.write(line + '\n');

const baselineFile = join(root, 'bench', 'baseline.json');
// `RATCHET_AGAINST=COMMIT` measures against another commit (the build before a change, say) in the same
// way; it never moves the baseline.
const against = process.env.RATCHET_AGAINST;
const baselineCommit = git('rev-parse', '--verify', `${against ?? (JSON.parse(readFileSync(baselineFile, 'utf8')) as { commit: string }).commit}^{commit}`);
const short = baselineCommit.slice(0, 7);

/** The baseline's worktree, created, linked and built on first use, reused after. */
function prepareBaseline(): string {
  const dir = join(root, 'node_modules', '.cache', 'sdp', 'ratchet', baselineCommit.slice(0, 12));
  if (!existsSync(join(dir, 'package.json'))) {
    // A worktree whose folder was deleted is still registered until pruned, and would block the add.
    git('worktree', 'prune');
    mkdirSync(dirname(dir), { recursive: true });
    say(`ratchet: checking out the baseline ${short} in ${relative(root, dir)}`);
    git('worktree', 'add', '--detach', '--force', dir, baselineCommit);
  }
  linkModules(dir);
  const builtMark = join(dir, '.ratchet-built');
  if (!existsSync(builtMark)) {
    say(`ratchet: building the baseline ${short} (once; kept for later runs)`);
    build(dir);
    writeFileSync(builtMark, '');
  }
  return dir;
}

/**
 * node_modules for the baseline without an install: its own @sdp packages linked by name (nearer than
 * this clone's, so they win), the tool links for its build script, and each package's nested
 * node_modules (versions that could not be hoisted) from this clone. Everything else is found by walking
 * up, into this clone's node_modules, which holds the baseline's folder.
 */
function linkModules(dir: string): void {
  const modules = join(dir, 'node_modules');
  mkdirSync(modules, { recursive: true });
  const link = (target: string, at: string) => {
    if (existsSync(at)) return;
    mkdirSync(dirname(at), { recursive: true });
    symlinkSync(target, at, 'junction');
  };
  link(join(root, 'node_modules', '.bin'), join(modules, '.bin'));
  for (const p of readdirSync(join(dir, 'packages'))) {
    const manifest = join(dir, 'packages', p, 'package.json');
    if (!existsSync(manifest)) continue;
    const name = (JSON.parse(readFileSync(manifest, 'utf8')) as { name: string }).name;
    link(join(dir, 'packages', p), join(modules, name));
    const nested = join(root, 'packages', p, 'node_modules');
    if (existsSync(nested)) link(nested, join(dir, 'packages', p, 'node_modules'));
  }
}

function build(dir: string): void {
  const r = spawnSync('npm', ['run', 'build', '--silent'], { cwd: dir, stdio: ['ignore', 'inherit', 'inherit'], shell: process.platform === 'win32' });
  if (r.status !== 0) throw new Error(`ratchet: npm run build failed in ${dir}`);
}

/** Dependencies the baseline declared that the working tree (whose node_modules it runs on) declares otherwise or not at all. */
function dependencyDifferences(dir: string): string[] {
  const declared = (top: string) => {
    const out = new Map<string, string>();
    const manifests = ['package.json', ...readdirSync(join(top, 'packages')).map((p) => join('packages', p, 'package.json'))];
    for (const m of manifests) {
      if (!existsSync(join(top, m))) continue;
      const pkg = JSON.parse(readFileSync(join(top, m), 'utf8')) as Record<string, Record<string, string> | undefined>;
      for (const field of ['dependencies', 'devDependencies', 'peerDependencies', 'optionalDependencies']) {
        for (const [name, range] of Object.entries(pkg[field] ?? {})) if (!name.startsWith('@sdp/')) out.set(`${dirname(m) === '.' ? 'root' : dirname(m)} ${name}`, range);
      }
    }
    return out;
  };
  const theirs = declared(dir);
  const ours = declared(root);
  const diffs: string[] = [];
  for (const [key, range] of theirs) if (ours.get(key) !== range) diffs.push(`${key} ${range} -> ${ours.get(key) ?? 'not declared'}`);
  return diffs;
}

interface Measure {
  cpuUs: number;
  units: number;
}

interface Row {
  name: string;
  /** What one unit is: the table's "µs of CPU per …". */
  per: string;
  /** Why a build cannot run the row, where one cannot. */
  missing(build: string): string | undefined;
  measure(build: string): Promise<Measure>;
}

/** A measure in a fresh process of its own (bench/ratchet-probe.mjs), pinned beside the servers. */
function probe(row: string, env: Record<string, string> = {}) {
  return async (build: string): Promise<Measure> => {
    const cmd = [process.execPath, join(root, 'bench', 'ratchet-probe.mjs'), build, row];
    const [c, a] = hasTaskset ? ['taskset', ['-c', '0', ...cmd]] : [cmd[0]!, cmd.slice(1)];
    const r = spawnSync(c, a, { cwd: root, encoding: 'utf8', env: { ...process.env, ...env } });
    const last = r.stdout.trim().split('\n').pop() ?? '';
    if (r.status !== 0 || !last.startsWith('{')) throw new Error(`ratchet probe ${row} on ${build} failed (${r.status}):\n${r.stdout}${r.stderr}`);
    return JSON.parse(last) as Measure;
  };
}

const scratch = mkdtempSync(join(tmpdir(), 'sdp-ratchet-'));
const servers = new Map<string, { child: ChildProcess; url: string }>();

/** `POST /v1.5/validate` on the build's `sdp serve` (built JavaScript, access log to a file), server CPU per request. */
function httpRow(name: string, store: (tag: string) => string): Row {
  const key = (build: string) => `${name} ${build}`;
  return {
    name,
    per: 'request',
    missing: (build) => (existsSync(join(build, 'packages', 'server', 'dist', 'cli.js')) ? undefined : 'no built server'),
    async measure(build) {
      let s = servers.get(key(build));
      if (!s) {
        const tag = Math.random().toString(36).slice(2);
        s = await startServerProcess(process.execPath, [join(build, 'packages', 'server', 'dist', 'cli.js'), 'serve', '--port', '0', '--store', store(tag), '--accounts', benchAccountsFile(scratch, 1), '--access-log', join(scratch, `access-${tag}.log`), ...SERVE_ARGS], 0);
        servers.set(key(build), s);
        // Warm-up: JIT, caches, the account's first allowance window.
        await validateLoad(s.url, 1, 2);
      }
      const pid = s.child.pid!;
      const cpu = () => {
        const { user, system } = processCpu(pid);
        return (user + system) * 1e6;
      };
      const before = cpu();
      const r = await validateLoad(s.url, 1, LOAD_SECONDS);
      const cpuUs = cpu() - before;
      if (r.non2xx + r.errors > 0) throw new Error(`${name}: ${r.non2xx} non-2xx answers and ${r.errors} errors`);
      return { cpuUs, units: r.requests.total };
    },
  };
}

const allRows: Row[] = [
  httpRow('HTTP validate, memory store', () => 'memory:'),
  httpRow('HTTP validate, SQLite store', (tag) => `sqlite:${join(scratch, `${tag}.db`)}`),
  { name: 'engine.call core.validate (no HTTP)', per: 'call', missing: () => undefined, measure: probe('engine') },
  {
    name: 'stream fan-out (100 connections x 10 hashes)',
    per: 'delivery',
    missing: (build) => (existsSync(join(build, 'packages', 'stream', 'dist', 'index.js')) ? undefined : 'no @sdp/stream'),
    measure: probe('stream'),
  },
  {
    name: 'simulator: agency-week, standard package, first day',
    per: 'simulated call',
    missing: () => undefined,
    measure: probe('sim', { RATCHET_SIM_DURATION: process.env.RATCHET_SIM_DURATION ?? '1d', RATCHET_SCENARIO: join(root, 'examples', 'agency-week.yaml') }),
  },
];
const rows = allRows.filter((r) => !only || only.test(r.name));

interface Result {
  row: string;
  per: string;
  baseline: number[];
  work: number[];
  ratios: number[];
  missing?: string;
}

async function main(): Promise<number> {
  if (hasTaskset) spawnSync('taskset', ['-a', '-cp', '1', String(process.pid)], { stdio: 'ignore' });
  const baseDir = prepareBaseline();
  say('ratchet: building the working tree (npm run build, incremental)');
  build(root);
  const notes: string[] = [];
  const diffs = dependencyDifferences(baseDir);
  notes.push(
    diffs.length > 0
      ? `the baseline declared ${diffs.length} dependencies otherwise than the working tree and runs on the working tree's node_modules: ${diffs.join('; ')}`
      : `every dependency the baseline declared, the working tree declares alike (the baseline runs on the working tree's node_modules)`,
  );
  const builds = { baseline: baseDir, work: root };
  const results: Result[] = rows.map((r) => ({ row: r.name, per: r.per, baseline: [], work: [], ratios: [], missing: r.missing(baseDir) ?? r.missing(root) }));
  const started = performance.now();
  try {
    for (let round = 0; round < ROUNDS; round++) {
      for (const [i, row] of rows.entries()) {
        const res = results[i]!;
        // Which build goes first alternates, so a drift in the machine's load favours neither.
        const order: ('baseline' | 'work')[] = round % 2 === 0 ? ['baseline', 'work'] : ['work', 'baseline'];
        const got: Partial<Record<'baseline' | 'work', number>> = {};
        for (const which of order) {
          if (row.missing(builds[which])) continue;
          const m = await row.measure(builds[which]);
          got[which] = m.cpuUs / m.units;
          res[which].push(got[which]!);
        }
        if (got.baseline !== undefined && got.work !== undefined) res.ratios.push(got.work / got.baseline);
        say(`ratchet: round ${round + 1}/${ROUNDS} ${row.name}: baseline ${got.baseline?.toFixed(3) ?? '-'} µs, working tree ${got.work?.toFixed(3) ?? '-'} µs per ${row.per}`);
      }
    }
  } finally {
    await Promise.all([...servers.values()].map((s) => stopServerProcess(s.child)));
    rmSync(scratch, { recursive: true, force: true });
  }
  const minutes = (performance.now() - started) / 60_000;
  const slower = results.filter((r) => r.ratios.length > 0 && median(r.ratios) > 1 + TOLERANCE);
  const head = git('rev-parse', '--short', 'HEAD');
  const dirty = git('status', '--porcelain', '--untracked-files=no') !== '';
  const fmt = (xs: number[]) => (xs.length ? median(xs).toFixed(xs.length && median(xs) < 10 ? 3 : 1) : 'n/a');
  const lines = [
    `| row | µs of CPU per | baseline ${short} | working tree ${head}${dirty ? ' + changes' : ''} | ratio | spread of rounds | verdict |`,
    '|---|---|--:|--:|--:|--|--|',
    ...results.map((r) => {
      const ratio = r.ratios.length ? median(r.ratios) : NaN;
      const verdict = r.ratios.length === 0 ? `baseline has ${r.missing ?? 'no figure'}` : ratio > 1 + TOLERANCE ? '**SLOWER**' : ratio < 1 - TOLERANCE ? 'faster' : 'same';
      // How many rounds had the working tree slower: a median carried by one or two rounds reads as noise.
      const spread = r.ratios.length ? `${Math.min(...r.ratios).toFixed(3)}-${Math.max(...r.ratios).toFixed(3)}, ${r.ratios.filter((x) => x > 1).length}/${r.ratios.length} slower` : '';
      return `| ${r.row} | ${r.per} | ${fmt(r.baseline)} | ${fmt(r.work)} | ${Number.isNaN(ratio) ? '' : ratio.toFixed(3)} | ${spread} | ${verdict} |`;
    }),
  ];
  console.log(lines.join('\n'));
  console.log('');
  console.log(
    `${new Date().toISOString().slice(0, 10)}, ${ROUNDS} alternating rounds (medians; ratio = working tree / baseline, each round's pair moments apart), HTTP loads of ${LOAD_SECONDS} s at 50 connections, ` +
      `${hasTaskset ? 'servers and probes on CPU 0, load on CPU 1' : 'no taskset: nothing pinned'}, node ${process.version}, ${minutes.toFixed(1)} min; a row over ${(1 + TOLERANCE).toFixed(2)} fails the run`,
  );
  for (const n of notes) console.log(`note: ${n}`);
  if (jsonFile) writeFileSync(jsonFile, JSON.stringify({ baseline: baselineCommit, head, dirty, rounds: ROUNDS, results }, null, 2));
  if (args.includes('--advance')) advance(slower.length, dirty);
  if (slower.length > 0 && !args.includes('--no-fail')) {
    say(`ratchet: slower than ${short} by more than ${TOLERANCE * 100} %: ${slower.map((r) => r.row).join('; ')}`);
    return 1;
  }
  return 0;
}

/** Moves bench/baseline.json to HEAD, only where nothing was slower and HEAD is what was measured and lies ahead of the baseline. */
function advance(slowerRows: number, dirty: boolean): void {
  const head = git('rev-parse', 'HEAD');
  const refuse = (why: string) => say(`ratchet: the baseline stays at ${short}: ${why}`);
  if (only) return refuse('--only measured part of the rows');
  if (against) return refuse('RATCHET_AGAINST measured against another commit than the baseline');
  if (slowerRows > 0) return refuse('a row was slower');
  if (dirty) return refuse('the working tree has uncommitted changes, so HEAD is not what was measured');
  if (head === baselineCommit) return refuse('HEAD is the baseline');
  if (spawnSync('git', ['merge-base', '--is-ancestor', baselineCommit, head], { cwd: root }).status !== 0) return refuse('HEAD does not descend from it');
  const current = JSON.parse(readFileSync(baselineFile, 'utf8')) as Record<string, unknown>;
  writeFileSync(baselineFile, JSON.stringify({ ...current, commit: head }, null, 2) + '\n');
  say(`ratchet: bench/baseline.json now names ${head.slice(0, 7)}; commit it`);
}

process.exitCode = await main();
