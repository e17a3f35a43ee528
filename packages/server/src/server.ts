import { networkInterfaces } from 'node:os';
import type { AddressInfo } from 'node:net';
import { createEngine, httpConnector, ownEndpointProblem, PushDelivery, type Engine, type OutboundHttp, type OwnEndpoints } from '@sdp/core';
import { chooseWritePolicy, type Clock, type Deployment, type EventStore } from '@sdp/core/kernel';
import { ManualClock, SystemClock, randomIds } from '@sdp/clock';
import { ConnectionBudget, createApiHandler, createNodeServer, listen, nodeOutbound, processBudget, type RunningServer } from '@sdp/http';
import { handedServer, type HandedServer } from './handed-connections.ts';
import { openAccessLog } from './access-log.ts';
import { createConsoleFiles } from './console/console-files.ts';
import { consoleReadRoutes } from './console/console-reads.ts';
import { recordWrites, WriteLog } from './console/write-log.ts';
import { noAccountsOpened, openAccountsFromFile, type OpenedAccounts } from './accounts-file.ts';
import { StoreOutageLog } from './store-outage-log.ts';
import { demoCurl, openDemoAccount, type DemoAccount } from './demo-account.ts';
import { FirehoseKeeper } from './firehose-keeper.ts';
import { StreamHost, type StreamHostOptions } from '@sdp/stream';
import { listenStreamOnly, streamOnlyServer, streamRoutes } from './stream-routes.ts';
import { openStore } from './open-store.ts';
import { createOperatorApi } from './operator-api.ts';
import { PushKeeper } from './push-keeper.ts';
import { eventRoutes } from './event-routes.ts';
import { faultRoutes } from './fault-routes.ts';
import { FaultInjector } from './faults.ts';
import { createDocsPage } from './docs-page.ts';
import { healthCheck } from './health.ts';
import { journalRoutes, RequestJournal } from './request-journal.ts';
import type { ServerSettings } from './settings.ts';

/** A turn of the event loop for other requests between slices of large work (timers and I/O run first). */
const yieldTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** The pause between a call's attempts when another process wrote what it read (the engine draws it). */
const wait = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** How often switched-on firehoses are fed on the system clock. */
const FIREHOSE_FEED_MS = 5_000;

export interface RunningSdp {
  engine: Engine;
  store: EventStore;
  clock: SystemClock | ManualClock;
  url: string;
  port: number;
  /** The Node HTTP server underneath (for connection counts and such). */
  http: RunningServer;
  storeDescription: string;
  /** Set on the first start over an empty store (no `--accounts`): the demo account and a working curl line. */
  demo?: DemoAccount & { curl: string };
  accounts: OpenedAccounts;
  /** The operator's injected faults (`/_admin/faults`). */
  faults: FaultInjector;
  /** The stream product on this process (its connections: `GET /_admin/streams`). */
  streams: StreamHost;
  /** `--stream-port`'s own listener, when asked for. */
  streamUrl?: string;
  /** A worker of `--workers` (`StartHooks.handed`): where the primary hands it the connections it owns. */
  handed?: { api: HandedServer; stream?: HandedServer };
  /** Stops accepting, lets in-flight requests finish, then closes the store and the access log. */
  close(): Promise<void>;
}

export interface StartHooks {
  onError?: (error: unknown) => void;
  /**
   * false: leave the store's first-start work (the demo account, `--accounts`) to someone else — the
   * primary of `--workers`, which does it once before the workers start. Default true.
   */
  setup?: boolean;
  /** false: no timed background work (firehose feeding, push delivery): with `--workers` only one process does it. Default true. */
  background?: boolean;
  /**
   * Push requests go out through this (tests shorten its timeout). The default also refuses any address
   * a name resolves to that is the server itself; one given here is trusted to do its own checking.
   */
  pushOutbound?: OutboundHttp;
  /** Told once when the store stops answering (calls answer 503 meanwhile), and once when it is back. */
  onStoreAway?: (error: unknown) => void;
  onStoreBack?: () => void;
  /**
   * Listen on no port: the primary of `--workers` listens on `port` (and `streamPort`) and hands this
   * process the connections of the accounts it owns (`RunningSdp.handed`).
   */
  handed?: { port: number; streamPort?: number | undefined };
  /** How long a request's body has to arrive (default `REQUEST_TIMEOUT_MS`, 60 s; tests shorten it). */
  requestTimeoutMs?: number;
  /** The pace of the stream host's liveness records (tests shorten it; docs/stream.md has the defaults). */
  streamLiveness?: Exclude<StreamHostOptions['liveness'], false>;
  /** Time a WebSocket handshake may take (default `HANDSHAKE_MS`, 10 s; tests shorten it). */
  streamHandshakeMs?: number;
}

/**
 * Where the settings put this process: a worker of `--workers` is handed only the connections of the
 * accounts it owns, and a balancer routing by account (`--routing account`) sends each account's calls to
 * one server, so either owns its accounts (a write made beside it, an operator's change through another
 * process, is met by the read guards, which then read it); one server without workers is alone on its
 * store unless the store is one other servers can reach (the policy decides that from the store's record).
 */
export function deploymentOf(settings: Pick<ServerSettings, 'workers' | 'routing'>, hooks: Pick<StartHooks, 'handed'>): Deployment {
  if (hooks.handed !== undefined || settings.routing === 'account') return 'owns-accounts';
  return settings.workers <= 1 ? 'alone' : 'any';
}

/** Starts the server of docs/contract.md#fixed-names-of-the-server with the given settings (the CLI's `serve`, and the end-to-end tests). */
export async function startServer(settings: ServerSettings, hooks: StartHooks = {}): Promise<RunningSdp> {
  const clock = settings.clock === 'manual' ? new ManualClock(settings.clockStartMs ?? Date.now(), { yieldTurn }) : new SystemClock();
  const { store, description } = await openStore(settings.store);
  const writes = new WriteLog();
  // Only the console reads the write log, and it is served only with an operator token: without one, the
  // store is not watched for it (a promise reaction and a notice per append, for nobody).
  const stopRecordingWrites = settings.adminToken ? recordWrites(store, clock, writes) : () => {};
  let http: RunningServer | undefined;
  let streamServer: RunningServer | undefined;
  let streams: StreamHost | undefined;
  let stopKeepers = async () => {};
  const log = openAccessLog(settings.accessLog);
  try {
    const outage = new StoreOutageLog(
      hooks.onStoreAway ?? ((e) => console.error(`store unavailable, answering 503 until it returns: ${e instanceof Error ? e.message : String(e)}`)),
      hooks.onStoreBack ?? (() => console.error('store available again')),
    );
    const onError = outage.errors(hooks.onError ?? ((e: unknown) => console.error('unexpected error:', e)));
    // How this process writes, chosen once from what the store says it is and where the settings put
    // the process (write-policy.ts in the kernel; docs/stores.md#the-capabilities-record-and-the-write-policy).
    const policy = chooseWritePolicy(store.capabilities, deploymentOf(settings, hooks));
    // Only where an operator can read it: a server without the operator API keeps no journal.
    const journal = settings.adminToken ? new RequestJournal() : undefined;
    const engine = createEngine({ store, clock: clock as Clock, ids: randomIds(), settings: { limitingDay: settings.limitingDay }, writePolicy: policy,
      onError: (e) => onError(e),
      yieldTurn,
      wait,
      onStoreAway: (e) => outage.wentAway(e),
      onStoreBack: () => outage.cameBack(),
      ...(journal ? { onCallWritten: journal.wrote } : {}),
    });

    // Whether this start opens the demo account is known now, before anything is served; it is opened once
    // the port is ours, so a start that fails (the port busy) creates nothing whose key nobody saw.
    const firstStart = hooks.setup !== false && (await store.head()) === 0;

    // The index reads its events once before serving, so the first analysis does not pay for the log.
    await engine.recordingIndex.catchUp();
    const firehoses = new FirehoseKeeper(engine, yieldTurn, onError, () => outage.cameBack());
    await firehoses.recover();
    if (clock instanceof SystemClock && hooks.background !== false) firehoses.every(FIREHOSE_FEED_MS);
    const self = new OwnListening(settings);
    const refuse = (address: string, port: number) => ownEndpointProblem(address, port, self.endpoints());
    const outbound = hooks.pushOutbound ?? nodeOutbound({ refuse });
    const delivery = new PushDelivery(engine).connect('http', httpConnector({ outbound, allowedHosts: settings.pushAllowedHosts, own: () => self.endpoints() }));
    const pushes = new PushKeeper(engine, delivery, clock, onError, () => outage.cameBack());
    await pushes.discover();
    stopKeepers = async () => {
      await pushes.stop();
      await firehoses.stop();
    };
    const faults = new FaultInjector();
    // A sole writer ends the connections a previous run left open; with several processes, each is a host
    // with a liveness record, and the others end a dead one's connections (docs/stream.md).
    const alone = policy.name === 'sole-writer';
    streams = new StreamHost({ engine, clock: clock as Clock, onError, endLeftOpen: alone, liveness: alone ? false : (hooks.streamLiveness ?? {}), ...(hooks.streamHandshakeMs !== undefined ? { handshakeMs: hooks.streamHandshakeMs } : {}) });
    await streams.start();
    const liveStreams = streams;
    const resetAll = async (): Promise<void> => {
      await liveStreams.reset(() => engine.reset());
      writes.forget();
      firehoses.forgetAll();
      pushes.forgetAll();
    };
    const operator = createOperatorApi({ engine, clock, token: settings.adminToken, bodyLimit: settings.bodyLimit, firehoses, pushes, extraRoutes: [...eventRoutes(engine, firehoses, resetAll), ...faultRoutes(engine, faults), ...streamRoutes(liveStreams), ...consoleReadRoutes(engine, clock, writes), ...(journal ? journalRoutes(journal) : [])] });
    // The engine's answer as a value where the call waited on nothing: the face then answers at once.
    const apiHandler = createApiHandler({ call: (call, endpoint) => engine.answer(call, endpoint) }, {
      product: settings.product,
      bodyLimit: settings.bodyLimit,
      // Without a token the operator API and the console are not mounted at all: their paths answer the
      // API's own 404 for an unknown path, so nothing tells a client they exist.
      // A browser asks every page's host for an icon: an empty answer rather than a 404 in its console.
      mounts: { docs: createDocsPage(), _health: healthCheck, 'favicon.ico': async () => ({ status: 204, headers: { 'Cache-Control': 'public, max-age=86400' } }), ...(settings.adminToken ? { _admin: operator, _console: createConsoleFiles({ token: settings.adminToken }) } : {}) },
      ...(settings.rateLimitHeaders ? { rateLimitHeaders: settings.rateLimitHeaders } : {}),
      ...(settings.adminToken ? { faults: (target) => (faults.active ? faults.intercept(target) : undefined) } : {}),
      ...(log ? { onAccess: log.write } : {}),
      ...(journal ? { onCall: journal.called } : {}),
      onError,
    });
    const handler = journal ? journal.wrap(apiHandler) : apiHandler;
    let handed: RunningSdp['handed'];
    const budget = connectionBudget(settings);
    if (hooks.handed) {
      const api = handedServer(createNodeServer(handler, hooks.requestTimeoutMs ? { requestTimeoutMs: hooks.requestTimeoutMs } : {}), { host: settings.host, port: hooks.handed.port }, { budget });
      const stream = hooks.handed.streamPort !== undefined ? handedServer(streamOnlyServer(streams), { host: settings.host, port: hooks.handed.streamPort }, { closeAll: true, budget }) : undefined;
      handed = { api, ...(stream ? { stream } : {}) };
      http = api;
      streamServer = stream;
      streams.attach(api.server);
      self.listening(settings.host, api.port);
    } else {
      http = await listen(handler, { port: settings.port, host: settings.host, budget, ...(hooks.requestTimeoutMs ? { requestTimeoutMs: hooks.requestTimeoutMs } : {}) });
      streams.attach(http.server);
      if (settings.streamPort !== undefined) streamServer = await listenStreamOnly(streams, settings.streamPort, settings.host, budget);
      self.listening((http.server.address() as AddressInfo).address, http.port);
    }
    const { accounts, demo } = hooks.setup === false ? { accounts: noAccountsOpened(), demo: undefined } : await firstStartWork(engine, store, settings, firstStart);
    // Deliveries start once the port is known, so none can go out to it before it is counted as ours.
    if (clock instanceof SystemClock && hooks.background !== false) pushes.every();
    const running = http;
    let closing: Promise<void> | undefined;
    return {
      engine,
      store,
      clock,
      url: running.url,
      port: running.port,
      http: running,
      storeDescription: description,
      ...(demo ? { demo: { ...demo, curl: demoCurl(engine, running.url, demo) } } : {}),
      accounts,
      faults,
      streams: liveStreams,
      ...(streamServer ? { streamUrl: streamServer.url } : {}),
      ...(handed ? { handed } : {}),
      close: () =>
        (closing ??= (async () => {
          // Open streams first: the listeners wait for every connection to end.
          await liveStreams.close();
          await streamServer?.close();
          await running.close();
          await stopKeepers();
          stopRecordingWrites();
          await store.close();
          await log?.close();
        })()),
    };
  } catch (error) {
    await streams?.close();
    await streamServer?.close();
    await http?.close();
    await stopKeepers();
    stopRecordingWrites();
    await store.close();
    await log?.close();
    throw error;
  }
}

/**
 * The connections this process may hold (`--max-connections`, `--max-connections-per-address`): the
 * process's shared budget unless a limit is set, so every port of the process draws on one count.
 */
export function connectionBudget(settings: ServerSettings): ConnectionBudget {
  if (settings.maxConnections === undefined && settings.maxConnectionsPerAddress === undefined) return processBudget();
  return new ConnectionBudget({
    ...(settings.maxConnections !== undefined ? { maxConnections: settings.maxConnections } : {}),
    ...(settings.maxConnectionsPerAddress !== undefined ? { maxPerAddress: settings.maxConnectionsPerAddress } : {}),
  });
}

/**
 * Where this process listens, for the push check: its port (every worker of `--workers` shares the one
 * port) and its address, or with a wildcard listen every interface's address, read again at each ask
 * (interfaces come and go). Loopback and unspecified addresses count in the core whatever is listed.
 */
class OwnListening {
  private readonly ports: number[];
  private address: string;
  constructor(settings: ServerSettings) {
    // Known before listening when fixed: a delivery found at start is judged against it already.
    this.ports = settings.port !== 0 ? [settings.port] : [];
    this.address = settings.host;
  }

  listening(address: string, port: number): void {
    this.address = address;
    if (!this.ports.includes(port)) this.ports.push(port);
  }

  endpoints(): OwnEndpoints {
    if (this.address !== '0.0.0.0' && this.address !== '::') return { ports: this.ports, addresses: [this.address] };
    const addresses: string[] = [];
    for (const list of Object.values(networkInterfaces())) for (const one of list ?? []) addresses.push(one.address);
    return { ports: this.ports, addresses };
  }
}

/** What a start does to the store before serving: the accounts of `--accounts`, or a demo account on an empty store. */
export async function firstStartWork(
  engine: Engine,
  store: EventStore,
  settings: ServerSettings,
  /** Whether the store was empty when the start began (read before serving); read now when not given. */
  firstStart?: boolean,
): Promise<{ accounts: OpenedAccounts; demo: DemoAccount | undefined }> {
  firstStart ??= (await store.head()) === 0;
  const accounts = settings.accountsFile ? await openAccountsFromFile(engine, settings.accountsFile) : noAccountsOpened();
  const demo = firstStart && !settings.accountsFile ? await openDemoAccount(engine) : undefined;
  return { accounts, demo };
}
