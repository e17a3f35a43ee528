import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { join, resolve } from 'node:path';
import { comparePackages, comparisonText, type Comparison } from './compare-packages.ts';
import { daysCsv, hoursCsv, resultJson } from './report-data.ts';
import { reportHtml } from './report-html.ts';
import { summaryText } from './report-table.ts';
import { runScenario, type SimFigures } from './run-scenario.ts';
import { ScenarioError, parseScenario, type Scenario } from './scenario.ts';
import { compareHtml } from './report-compare-html.ts';
import { progressFor } from './progress.ts';
import type { AccountPackage } from '@sdp/core';
import { scenarioJsonSchema } from './scenario-schema.ts';

const USAGE = `usage: sdp sim SCENARIO.yaml [--compare PKG,PKG,...] [--duration SPAN] [--out DIR] [--quiet]
       sdp sim --schema          prints the scenario format as a JSON Schema (for editors)

Runs a scenario file (YAML or JSON) through the engine on a manual clock and writes, to DIR
(default ./sim-out/<scenario name>): hours.json, hours.csv, days.csv and report.html.
Progress goes to stderr (bars on a terminal, plain lines otherwise); --quiet silences it and the summary.
--compare runs it once under each named package (from the file's "packages", or "default") and
names the cheapest that admits everything, its price and its saving against the others (by each
package's "price", US dollars a month unless it says; the smallest when none has a price); a
"compare" list in the file does the same. --duration runs the file for another span than its own
(4w, 28d, 1mo): a week's scenario for a month, say.`;

interface Io {
  out: (s: string) => void;
  err: (s: string) => void;
  /** Whether stderr is a terminal: progress bars there, plain lines anywhere else. */
  tty: boolean;
  /** How often plain progress lines come (default every 3 s). */
  progressEveryMs?: number;
}

const defaultIo: Io = {
  out: (s) => process.stdout.write(s + '\n'),
  err: (s) => process.stderr.write(s + '\n'),
  tty: Boolean(process.stderr.isTTY),
};

/** `sdp sim ...`: returns the exit code (0 done, 1 failed, 2 bad usage or scenario). */
export async function simMain(argv: string[], io: Io = defaultIo): Promise<number> {
  const args = argv[0] === 'sim' ? argv.slice(1) : [...argv];
  let parsed;
  try {
    parsed = parseArgs({ args, options: SIM_OPTIONS, strict: true, allowPositionals: true });
  } catch (error) {
    return usage(io, argumentError(error as NodeJS.ErrnoException));
  }
  const { values, positionals } = parsed;
  if (values.help) {
    io.out(USAGE);
    return 0;
  }
  if (values.schema) {
    io.out(JSON.stringify(scenarioJsonSchema(), null, 2));
    return 0;
  }
  if (values.compare === '') return usage(io, SIM_OPTIONS.compare.needs);
  if (values.out === '') return usage(io, SIM_OPTIONS.out.needs);
  if (values.duration === '') return usage(io, SIM_OPTIONS.duration.needs);
  const compare = values.compare?.split(',').map((s) => s.trim()).filter(Boolean);
  const outDir = values.out;
  const quiet = values.quiet === true;
  if (positionals.length > 1) return usage(io, `one scenario file at a time (got ${positionals[0]} and ${positionals[1]})`);
  const file = positionals[0];
  if (!file) return usage(io, 'name a scenario file');

  let scenario: Scenario;
  try {
    scenario = parseScenario(readFileSync(file, 'utf8'), file, values.duration === undefined ? {} : { duration: values.duration });
  } catch (error) {
    if (error instanceof ScenarioError) {
      io.err(error.message);
      return 2;
    }
    io.err(`cannot read ${file}: ${(error as Error).message}`);
    return 2;
  }
  const names = compare ?? (scenario.compare.length > 0 ? scenario.compare : undefined);
  if (names) {
    const unknown = names.filter((n) => !(n in scenario.packages));
    if (unknown.length > 0) {
      io.err(`--compare: no package named ${unknown.join(', ')}; the scenario's packages are ${Object.keys(scenario.packages).join(', ')}`);
      return 2;
    }
  }
  const dir = resolve(outDir ?? join('sim-out', slug(scenario.name)));
  const progress = quiet ? undefined : progressFor(names ?? [scenario.name], { err: io.err, tty: io.tty, ...(io.progressEveryMs !== undefined ? { everyMs: io.progressEveryMs } : {}) });
  try {
    if (names) {
      const probing = (n: number, p: AccountPackage) =>
        io.err(`sim: no package compared serves; search run ${n}: credits_per_hour ${p.credits_per_hour}, analyze_credits_per_hour ${p.analyze_credits_per_hour}, task_slots ${p.task_slots}, index_capacity_per_month ${p.index_capacity_per_month}`);
      const c = await comparePackages(scenario, names, progress ? { progress: progress.update, probing } : {});
      progress?.finish();
      writeComparison(dir, c, scenario);
      if (!quiet) {
        for (const r of c.runs) io.out(summaryText(r.result) + '\n');
        io.out(comparisonText(c));
      }
    } else {
      const r = await runScenario(scenario, progress ? { progress: (done) => progress.update(scenario.name, done) } : {});
      progress?.finish();
      writeRun(dir, r, scenario);
      if (!quiet) io.out(summaryText(r));
    }
  } catch (error) {
    progress?.finish();
    io.err(`the simulation failed: ${(error as Error).stack ?? String(error)}`);
    return 1;
  }
  if (!quiet) io.out(`reports written to ${dir}`);
  return 0;
}

/** The flags of `sdp sim`, split by node:util `parseArgs`; `needs` is what a flag without its value is told. */
const SIM_OPTIONS = {
  help: { type: 'boolean', short: 'h' },
  schema: { type: 'boolean' },
  compare: { type: 'string', needs: '--compare needs a list of package names' },
  out: { type: 'string', needs: '--out needs a directory' },
  duration: { type: 'string', needs: '--duration needs a span of time (4w, 28d)' },
  quiet: { type: 'boolean', short: 'q' },
} as const;

/** parseArgs's refusals in this command's words (the messages its tests and docs name). */
function argumentError(error: NodeJS.ErrnoException): string {
  const named = /'(-[^' ]*)/.exec(error.message)?.[1];
  if (error.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') return `unknown option ${named ?? error.message}`;
  const option = Object.entries(SIM_OPTIONS).find(([name]) => named === `--${name}`)?.[1];
  if (error.code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' && option && 'needs' in option) return option.needs;
  return error.message;
}

function usage(io: Io, message: string): number {
  io.err(`${message}\n\n${USAGE}`);
  return 2;
}

function slug(name: string): string {
  return name.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '') || 'scenario';
}

export function writeRun(dir: string, r: SimFigures, scenario: Scenario): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'hours.json'), JSON.stringify(resultJson(r), null, 1));
  writeFileSync(join(dir, 'hours.csv'), hoursCsv(r.hours));
  writeFileSync(join(dir, 'days.csv'), daysCsv(r));
  writeFileSync(join(dir, 'report.html'), reportHtml(r, scenario.limitingDay));
}

function writeComparison(dir: string, c: Comparison, scenario: Scenario): void {
  for (const run of c.runs) writeRun(join(dir, slug(run.name)), run.result, scenario);
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'compare.json'),
    JSON.stringify({ smallestWithoutRefusals: c.smallestWithoutRefusals, answer: c.answer, runs: c.runs.map((r) => ({ name: r.name, package: r.package, refusals: r.refusals, totals: r.result.totals })) }, null, 1),
  );
  writeFileSync(join(dir, 'compare.html'), compareHtml(c, (name) => `${slug(name)}/report.html`));
}
