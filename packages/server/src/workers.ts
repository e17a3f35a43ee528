import cluster, { type Worker } from 'node:cluster';
import { createServer as createNetServer, type Socket } from 'node:net';
import { bindPort, type ConnectionBudget } from '@sdp/http';
import { accountOfHead, HEAD_LIMIT, ownerOf } from './account-router.ts';
import { createEngine } from '@sdp/core';
import { type Clock } from '@sdp/core/kernel';
import { SystemClock, randomIds } from '@sdp/clock';
import type { OpenedAccounts } from './accounts-file.ts';
import { demoCurl, type DemoAccount } from './demo-account.ts';
import { openStore } from './open-store.ts';
import { connectionBudget, firstStartWork, startServer } from './server.ts';
import type { ServerSettings } from './settings.ts';

/** What the primary learns from a worker over the cluster channel. */
type WorkerMessage = { type: 'ready'; streamHost?: string } | { type: 'sdp:adopted'; id: number };
/** What the primary hands a worker: a connection (the socket rides along) and the bytes read from it. */
type HandedConnection = { type: 'sdp:connection'; id: number; port: 'api' | 'stream'; head: string };
/** What the primary tells a worker: another's process exited, its stream connections are to be ended now. */
type PrimaryMessage = { type: 'stream-host-gone'; host: string };

/** The worker that does the timed background work (firehose feeding): exactly one at any time. */
const BACKGROUND_ENV = 'SDP_WORKER_BACKGROUND';
/** The ports the primary listens on, for its workers to name as theirs. */
const PORT_ENV = 'SDP_WORKER_PORT';
const STREAM_PORT_ENV = 'SDP_WORKER_STREAM_PORT';
/** `turns`: hand connections out in turn, not by account (for measuring what routing gains). */
const ROUTING_ENV = 'SDP_WORKERS_ROUTING';

/** Workers that die this often within this window are not started again: something is wrong with them all. */
const RESTARTS_ALLOWED = 5;
const RESTART_WINDOW_MS = 10_000;
/**
 * How long the primary waits for a new connection's request head before handing it to any worker: a
 * client that connects and says nothing (a browser's preconnect, a slow client) is then the worker's to
 * time out, and the primary holds no connection longer than this.
 */
const HEAD_WAIT_MS = 2_000;

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
 * listens on the port (and `--stream-port`), and forks N processes that listen on none. It reads each new
 * connection's request head and hands the connection to the worker that owns the account its credentials
 * name (`ownerOf`: the same worker for an account while the workers stand), so an account's calls are
 * decided in one process, one after another in its lane, on its cached states, as with one process.
 * A connection that names no account goes to the workers in turn. Every worker opens the same store and
 * the store's checks at append still decide what is written, so admission stays exact when an account's
 * calls do reach two workers (a connection that carries several accounts' calls, a worker that died).
 * Resolves once every worker is ready; `stop` closes the ports, sends each worker SIGTERM (each finishes
 * its in-flight requests) and resolves when all have exited.
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

  /** The workers ready to be handed connections, by slot (a slot's replacement takes its accounts back). */
  const ready = new Map<number, Worker>();
  let turn = 0;
  // Every connection in turn, whatever its account: how the workers were fed before routing, kept to
  // measure the difference (docs/scaling.md), not for serving.
  const byAccount = process.env[ROUTING_ENV] !== 'turns';
  const pick = (account: string | undefined): Worker | undefined => {
    const slots = [...ready.keys()];
    if (slots.length === 0) return undefined;
    const slot = account === undefined || !byAccount ? slots[turn++ % slots.length]! : ownerOf(account, slots)!;
    return ready.get(slot);
  };
  /**
   * Connections handed to a worker that has not said it took them yet. The primary keeps its own copy of
   * each until then: a worker that dies before it reads the message (it was handed a connection in the
   * instant it was killed) would otherwise take the connection with it, unanswered; its connections go to
   * another worker instead.
   */
  const unconfirmed = new Map<Worker, Map<number, { socket: Socket; message: HandedConnection; account: string | undefined }>>();
  let handedCount = 0;
  const send = (socket: Socket, message: HandedConnection, account: string | undefined): void => {
    const worker = pick(account);
    if (!worker) return void socket.destroy();
    let mine = unconfirmed.get(worker);
    if (!mine) unconfirmed.set(worker, (mine = new Map()));
    mine.set(message.id, { socket, message, account });
    worker.send(message, socket, { keepOpen: true }, (error) => {
      // The channel is gone: the worker's exit hands the connection on.
      if (error && worker.isConnected()) {
        mine.delete(message.id);
        socket.destroy();
      }
    });
  };
  const confirmed = (worker: Worker, id: number): void => {
    const mine = unconfirmed.get(worker);
    const entry = mine?.get(id);
    if (!entry) return;
    mine!.delete(id);
    // Closes this process's copy only: the connection lives on in the worker.
    entry.socket.destroy();
  };
  const handOnFrom = (worker: Worker): void => {
    const mine = unconfirmed.get(worker);
    unconfirmed.delete(worker);
    for (const { socket, message, account } of mine?.values() ?? []) {
      if (stopping) socket.destroy();
      else send(socket, message, account);
    }
  };
  const hand = (port: HandedConnection['port']) => (socket: Socket) => {
    const chunks: Buffer[] = [];
    let read = 0;
    let handed = false;
    const handOn = () => {
      if (handed) return;
      handed = true;
      clearTimeout(timer);
      socket.off('data', onData);
      socket.pause();
      const head = Buffer.concat(chunks, read);
      send(socket, { type: 'sdp:connection', id: ++handedCount, port, head: head.toString('latin1') }, head.length > 0 ? accountOfHead(head) : undefined);
    };
    // The last 3 bytes before each chunk: the head's end may straddle two chunks. Each chunk is searched
    // once, so a client sending a byte at a time costs the primary no more than one sending it whole.
    let tail: Buffer = Buffer.alloc(0);
    const onData = (chunk: Buffer) => {
      chunks.push(chunk);
      read += chunk.length;
      const seen = tail.length > 0 ? Buffer.concat([tail, chunk]) : chunk;
      if (read >= HEAD_LIMIT || seen.includes('\r\n\r\n')) return handOn();
      tail = seen.subarray(Math.max(0, seen.length - 3));
    };
    const timer = setTimeout(handOn, HEAD_WAIT_MS);
    socket.on('data', onData);
    // A client gone before its head was read: nothing to hand on.
    socket.on('error', () => {
      clearTimeout(timer);
      handed = true;
      socket.destroy();
    });
    socket.on('end', () => {
      if (!handed) handOn();
    });
  };
  const budget = connectionBudget(settings);
  const apiPort = await listenOn(settings.port, settings.host, hand('api'), budget);
  const streamPort = settings.streamPort !== undefined ? await listenOn(settings.streamPort, settings.host, hand('stream'), budget) : undefined;
  const closePorts = () => Promise.all([apiPort, streamPort].map((p) => p?.close()));

  let stopping = false;
  const restarts: number[] = [];
  /** The stream host of each worker that serves (it listens for the primary's messages). */
  const streamHosts = new Map<Worker, string>();
  const fork = (slot: number): Worker => {
    const worker = cluster.fork({
      [BACKGROUND_ENV]: slot === 0 ? '1' : '0',
      [PORT_ENV]: String(apiPort.port),
      ...(streamPort ? { [STREAM_PORT_ENV]: String(streamPort.port) } : {}),
    });
    worker.on('message', (m: WorkerMessage) => {
      if (m?.type === 'ready') {
        if (m.streamHost) streamHosts.set(worker, m.streamHost);
        if (!stopping) ready.set(slot, worker);
      } else if (m?.type === 'sdp:adopted') confirmed(worker, m.id);
    });
    worker.on('exit', (code, signal) => {
      if (ready.get(slot) === worker) ready.delete(slot);
      handOnFrom(worker);
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
      log(`worker ${worker.process.pid} exited (${signal ?? code}); starting another (its accounts go to the others meanwhile)`);
      fork(slot);
    });
    return worker;
  };

  const workers = () => Object.values(cluster.workers ?? {}).filter((w): w is Worker => w !== undefined);
  const stopAll = async (): Promise<void> => {
    stopping = true;
    ready.clear();
    const closed = closePorts();
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
    await closed;
  };

  const started = Array.from({ length: settings.workers }, (_, slot) => fork(slot));
  await Promise.all(
    started.map(
      (worker) =>
        new Promise<void>((resolve, reject) => {
          const onExit = (code: number | null) => reject(new Error(`a worker exited with ${code} before it was ready`));
          worker.once('exit', onExit);
          worker.on('message', (m: WorkerMessage) => {
            if (m?.type !== 'ready') return;
            worker.off('exit', onExit);
            resolve();
          });
        }),
    ),
  ).catch(async (error: unknown) => {
    await stopAll();
    throw error;
  });
  const url = apiPort.url;
  return {
    storeDescription: description,
    accounts: setup.accounts,
    ...(setup.demo ? { demo: { ...setup.demo, curl: demoCurl(engine, url, setup.demo) } } : {}),
    url,
    ...(streamPort ? { streamUrl: streamPort.url } : {}),
    stop: stopAll,
  };
}

/** A port of the primary: it accepts connections and hands them on; it answers nothing itself. */
async function listenOn(port: number, host: string, onConnection: (socket: Socket) => void, budget: ConnectionBudget): Promise<{ port: number; url: string; close(): Promise<void> }> {
  const server = createNetServer(onConnection);
  const bound = await bindPort(server, port, host, { budget });
  return { ...bound, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/** A worker of `--workers`: serves the connections the primary hands it, tells the primary it is ready, stops on SIGTERM. */
export async function runWorker(settings: ServerSettings): Promise<void> {
  const port = Number(process.env[PORT_ENV]);
  const streamPort = process.env[STREAM_PORT_ENV] !== undefined ? Number(process.env[STREAM_PORT_ENV]) : undefined;
  const running = await startServer(settings, { setup: false, background: process.env[BACKGROUND_ENV] === '1', handed: { port, streamPort } });
  process.on('message', (m: HandedConnection | PrimaryMessage, socket: Socket | undefined) => {
    if (m?.type === 'stream-host-gone') return void running.streams.hostGone(m.host);
    if (m?.type !== 'sdp:connection' || !socket) return;
    const to = m.port === 'stream' ? running.handed?.stream : running.handed?.api;
    if (!to) return void socket.destroy();
    to.adopt(socket, Buffer.from(m.head, 'latin1'));
    process.send!({ type: 'sdp:adopted', id: m.id } satisfies WorkerMessage);
  });
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
  process.send!({ type: 'ready', ...(running.streams.host ? { streamHost: running.streams.host } : {}) } satisfies WorkerMessage);
}

export const isWorker = (): boolean => cluster.isWorker;
