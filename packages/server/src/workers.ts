import cluster, { type Worker } from 'node:cluster';
import { createEngine } from '@sdp/core';
import { type Clock } from '@sdp/core/kernel';
import { SystemClock, randomIds } from '@sdp/clock';
import type { OpenedAccounts } from './accounts-file.ts';
import { demoCurl, type DemoAccount } from './demo-account.ts';
import { openStore } from './open-store.ts';
import { firstStartWork, startServer } from './server.ts';
import type { ServerSettings } from './settings.ts';

/** What the primary learns from a worker over the cluster channel. */
type WorkerMessage = { type: 'listening'; url: string; streamHost?: string };
/** What the primary tells a worker: another's process exited, its stream connections are to be ended now. */
type PrimaryMessage = { type: 'stream-host-gone'; host: string };

/** The worker that does the timed background work (firehose feeding): exactly one at any time. */
const BACKGROUND_ENV = 'SDP_WORKER_BACKGROUND';

/** Workers that die this often within this window are not started again: something is wrong with them all. */
const RESTARTS_ALLOWED = 5;
const RESTART_WINDOW_MS = 10_000;

export interface StartReport {
  storeDescription: string;
  accounts: OpenedAccounts;
  demo?: DemoAccount & { curl: string };
  url: string;
  /** `--stream-port`'s listener. */
  streamUrl?: string;
}

/**
 * `sdp serve --workers N`: the primary does the store's first-start work once (demo account, `--accounts`),
 * then forks N processes that share the port (node:cluster hands connections out in turn). Every worker
 * opens the same store and decides on it: the store's expected-version check at append is what keeps
 * admission exact across processes, as it is across servers on one PostgreSQL database. Resolves once
 * every worker listens; `stop` sends each SIGTERM (each finishes its in-flight requests) and resolves
 * when all have exited.
 */
export async function startPrimary(settings: ServerSettings, log: (line: string) => void): Promise<StartReport & { stop(): Promise<void> }> {
  const { store, description } = await openStore(settings.store);
  const engine = createEngine({ store, clock: new SystemClock() as Clock, ids: randomIds(), settings: { limitingDay: settings.limitingDay } });
  let setup;
  try {
    setup = await firstStartWork(engine, store, settings);
  } finally {
    await store.close();
  }

  let stopping = false;
  const restarts: number[] = [];
  /** The stream host of each worker that serves (it listens for the primary's messages). */
  const streamHosts = new Map<Worker, string>();
  const fork = (background: boolean): Worker => {
    const worker = cluster.fork({ [BACKGROUND_ENV]: background ? '1' : '0' });
    worker.on('message', (m: WorkerMessage) => void (m?.type === 'listening' && m.streamHost && streamHosts.set(worker, m.streamHost)));
    worker.on('exit', (code, signal) => {
      const streamHost = streamHosts.get(worker);
      streamHosts.delete(worker);
      if (stopping) return;
      // Its stream connections' places are freed at once by a worker that serves, not after its record lapses.
      const other = [...streamHosts.keys()].find((w) => w.isConnected());
      if (streamHost && other) other.send({ type: 'stream-host-gone', host: streamHost } satisfies PrimaryMessage);
      const now = Date.now();
      restarts.push(now);
      while (restarts.length > 0 && restarts[0]! < now - RESTART_WINDOW_MS) restarts.shift();
      if (restarts.length >= RESTARTS_ALLOWED) {
        log(`worker ${worker.process.pid} exited (${signal ?? code}); ${restarts.length} exits in ${RESTART_WINDOW_MS / 1000} s: stopping`);
        void stopAll().then(() => process.exit(1));
        return;
      }
      log(`worker ${worker.process.pid} exited (${signal ?? code}); starting another`);
      fork(background);
    });
    return worker;
  };

  const workers = () => Object.values(cluster.workers ?? {}).filter((w): w is Worker => w !== undefined);
  const stopAll = async (): Promise<void> => {
    stopping = true;
    await Promise.all(
      workers().map(
        (w) =>
          new Promise<void>((resolve) => {
            if (w.process.exitCode !== null || w.process.signalCode !== null) return resolve();
            w.once('exit', () => resolve());
            w.process.kill('SIGTERM');
          }),
      ),
    );
  };

  const started = Array.from({ length: settings.workers }, (_, i) => fork(i === 0));
  const urls = await Promise.all(
    started.map(
      (worker) =>
        new Promise<string>((resolve, reject) => {
          const onExit = (code: number | null) => reject(new Error(`a worker exited with ${code} before it listened`));
          worker.once('exit', onExit);
          worker.on('message', (m: WorkerMessage) => {
            if (m?.type !== 'listening') return;
            worker.off('exit', onExit);
            resolve(m.url);
          });
        }),
    ),
  ).catch(async (error: unknown) => {
    await stopAll();
    throw error;
  });
  const url = urls[0]!;
  return {
    storeDescription: description,
    accounts: setup.accounts,
    ...(setup.demo ? { demo: { ...setup.demo, curl: demoCurl(engine, url, setup.demo) } } : {}),
    url,
    stop: stopAll,
  };
}

/** A worker of `--workers`: serves without the first-start work, tells the primary where it listens, stops on SIGTERM. */
export async function runWorker(settings: ServerSettings): Promise<void> {
  const running = await startServer(settings, { setup: false, background: process.env[BACKGROUND_ENV] === '1' });
  const stop = () => {
    running.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGTERM', stop);
  // Ctrl-C reaches every process of the group; the primary then waits for the workers to finish.
  process.on('SIGINT', stop);
  // A primary that died cannot hand out connections any more.
  process.on('disconnect', stop);
  process.on('message', (m: PrimaryMessage) => {
    if (m?.type === 'stream-host-gone') void running.streams.hostGone(m.host);
  });
  process.send!({ type: 'listening', url: running.url, ...(running.streams.host ? { streamHost: running.streams.host } : {}) } satisfies WorkerMessage);
}

export const isWorker = (): boolean => cluster.isWorker;
