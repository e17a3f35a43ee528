import { Worker } from 'node:worker_threads';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { AccountPackage } from '@sdp/core';
import type { SimFigures } from './run-scenario.ts';
import type { Scenario } from './scenario.ts';

/** One run a pool's thread makes: the scenario under a package. */
export interface PackageJob {
  id: number;
  name: string;
  fields: Partial<AccountPackage>;
}

type WorkerMessage = { type: 'progress'; job: number; done: number } | { type: 'result'; job: number; figures: SimFigures } | { type: 'failed'; job: number; message: string };

interface Pending {
  job: PackageJob;
  progress: ((done: number) => void) | undefined;
  resolve: (figures: SimFigures) => void;
  reject: (error: Error) => void;
}

/**
 * Worker threads that run one scenario under package after package: the packages of a comparison and
 * the probes of the allowance search share them, so a thread (and the loading of its code, a second or
 * more from TypeScript sources) starts once, not per run. Runs wait their turn when every thread is busy.
 */
export class PackagePool {
  private readonly idle: Worker[] = [];
  private readonly busy = new Map<Worker, Pending>();
  private readonly waiting: Pending[] = [];
  private started = 0;
  private nextId = 0;
  private closed = false;

  constructor(
    private readonly scenario: Scenario,
    readonly size: number,
  ) {}

  run(name: string, fields: Partial<AccountPackage>, progress?: (done: number) => void): Promise<SimFigures> {
    if (this.closed) return Promise.reject(new Error('the package pool is closed'));
    return new Promise((resolve, reject) => {
      this.waiting.push({ job: { id: this.nextId++, name, fields }, progress, resolve, reject });
      this.dispatch();
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    const all = [...this.idle, ...this.busy.keys()];
    this.idle.length = 0;
    await Promise.all(all.map((w) => w.terminate()));
  }

  private dispatch(): void {
    while (this.waiting.length > 0) {
      let worker = this.idle.pop();
      if (!worker && this.started < this.size) worker = this.start();
      if (!worker) return;
      const p = this.waiting.shift()!;
      this.busy.set(worker, p);
      worker.postMessage(p.job);
    }
  }

  private start(): Worker {
    this.started++;
    const entry = workerEntry();
    const worker = new Worker(entry.code, { eval: entry.eval, workerData: { scenario: this.scenario }, resourceLimits: { maxYoungGenerationSizeMb: YOUNG_GENERATION_MB } });
    worker.on('message', (m: WorkerMessage) => {
      const p = this.busy.get(worker);
      if (!p || p.job.id !== m.job) return;
      if (m.type === 'progress') return p.progress?.(m.done);
      this.busy.delete(worker);
      if (m.type === 'result') p.resolve(m.figures);
      else p.reject(new Error(`the run under package ${p.job.name} failed: ${m.message}`));
      this.idle.push(worker);
      this.dispatch();
    });
    const lost = (why: string) => {
      this.started--;
      const i = this.idle.indexOf(worker);
      if (i >= 0) this.idle.splice(i, 1);
      const p = this.busy.get(worker);
      this.busy.delete(worker);
      p?.reject(new Error(`the run under package ${p.job.name} stopped (${why}) before it finished`));
      if (!this.closed) this.dispatch();
    };
    worker.on('error', (error) => lost(error.message));
    worker.on('exit', (code) => {
      if (this.busy.has(worker) || this.idle.includes(worker)) lost(`exit code ${code}`);
    });
    return worker;
  }
}

/**
 * A run makes short-lived objects by the gigabyte (each call's answer and events, a week's 600,000
 * synthetic interactions, a stream state's day of ends): with V8's default young generation (16 MB
 * semi-spaces) many live just long enough to be copied out of it and collected again later. Twice that
 * took about a tenth off the CPU time of an agency-week package (10.9 and 9.8 s against 8.6 and 8.9 s);
 * four times that did no better. A young generation is three semi-spaces' worth in V8's sizing.
 */
const YOUNG_GENERATION_MB = 3 * 32;

/**
 * The worker's entry. Built JavaScript (an installed package, `npm start`, `npm run sim`) is loaded as
 * it is. From the TypeScript sources (the workspace's tests and benchmarks), the thread registers tsx's
 * hooks through tsx's own API (Node 20 does not hand the parent's loader hooks to a worker) and imports
 * the sources: the same loader the main thread uses, at about a second of CPU per thread, paid once per
 * thread since a pool's threads serve run after run.
 */
function workerEntry(): { code: string | URL; eval: boolean } {
  if (!import.meta.url.endsWith('.ts')) return { code: new URL('./package-worker.js', import.meta.url), eval: false };
  const module = new URL('./package-worker.ts', import.meta.url);
  return { code: `import(${JSON.stringify(tsxModule('dist/esm/api/index.mjs'))}).then((tsx) => { tsx.register(); return import(${JSON.stringify(module.href)}); });`, eval: true };
}

function tsxModule(path: string): string {
  return pathToFileURL(join(dirname(createRequire(import.meta.url).resolve('tsx/package.json')), path)).href;
}
