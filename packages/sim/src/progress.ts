import { MultiBar, Presets, type SingleBar } from 'cli-progress';

/** Told how far each package's run has got; `finish` once all are done. */
export interface Progress {
  update(name: string, done: number): void;
  finish(): void;
}

export interface ProgressOptions {
  /** Write a line (stderr). */
  err: (line: string) => void;
  /** A terminal gets bars; anything else (a pipe, a CI log) plain lines. */
  tty: boolean;
  /** Plain lines: at most one per package this often (and always at a package's end). */
  everyMs?: number;
}

/** Seconds as "4.2s", "3m05s". */
function secs(s: number): string {
  if (s < 60) return `${s.toFixed(1)}s`;
  return `${Math.floor(s / 60)}m${String(Math.round(s % 60)).padStart(2, '0')}s`;
}

/**
 * Progress of the packages of a run: on a terminal a bar per package with its ETA (cli-progress), redrawn
 * in place; piped or in CI, a plain line per package every few seconds and one when it ends, so a log
 * shows the run is alive without filling up with redraws.
 */
export function progressFor(names: string[], options: ProgressOptions): Progress {
  return options.tty ? terminalBars(names) : plainLines(names, options);
}

function terminalBars(names: string[]): Progress {
  const width = Math.max(...names.map((n) => n.length));
  const multi = new MultiBar(
    {
      stream: process.stderr,
      format: `{name} ({index}/{of}) [{bar}] {percentage}% | {duration_formatted} | ETA {eta_formatted}`,
      barsize: 30,
      hideCursor: true,
      clearOnComplete: false,
      etaBuffer: 50,
      fps: 10,
    },
    Presets.shades_classic,
  );
  const bars = new Map<string, SingleBar>(names.map((n, i) => [n, multi.create(1000, 0, { name: n.padEnd(width), index: i + 1, of: names.length })]));
  return {
    update: (name, done) => bars.get(name)?.update(Math.round(done * 1000)),
    finish: () => multi.stop(),
  };
}

function plainLines(names: string[], options: ProgressOptions): Progress {
  const every = options.everyMs ?? 3000;
  const started = performance.now();
  /**
   * When each package was first heard of and how far it had got: its ETA counts from there (packages may
   * wait for a thread, and report their first progress some way in).
   */
  const begun = new Map<string, { at: number; done: number }>();
  const last = new Map<string, number>();
  const ended = new Set<string>();
  const label = (name: string) => `sim: ${name} (${names.indexOf(name) + 1}/${names.length})`;
  return {
    update(name, done) {
      if (ended.has(name)) return;
      const now = performance.now();
      if (!begun.has(name)) begun.set(name, { at: now, done });
      const since = begun.get(name)!;
      const elapsed = (now - since.at) / 1000;
      if (done >= 1) {
        ended.add(name);
        options.err(`${label(name)} done in ${secs(elapsed)} (${secs((now - started) / 1000)} since the start)`);
        return;
      }
      if (now - (last.get(name) ?? started) < every) return;
      last.set(name, now);
      // No estimate until there is a pace to extrapolate: the first report of a package has none (it
      // would read "about 0.0s left"), nor has a second that came too soon after it to mean anything.
      const gained = done - since.done;
      const left = gained > 0.02 && elapsed >= 1 ? (elapsed * (1 - done)) / gained : undefined;
      options.err(`${label(name)} ${(done * 100).toFixed(0)}% after ${secs(elapsed)}${left === undefined ? '' : `, about ${secs(left)} left`}`);
    },
    finish() {},
  };
}
