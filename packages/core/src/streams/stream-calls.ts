import { CURRENT_VERSION } from '../catalogue/versions.ts';
import type { ApiCall, CallAnswer, EngineServices } from '../handling/handler.ts';
import { LostHosts, type StreamHosting } from './lost-hosts.ts';
import type { DeliveredCounts, StreamTransport } from './stream-connections.ts';

/** Credentials as a stream request carries them (every API form, read by the transport). */
export interface StreamCredentials {
  username: string;
  apiKey: string;
}

/** What the stream's calls need of an engine: its one door, and commands for freeing dead hosts' places. */
export interface CallDoor extends Pick<EngineServices, 'command'> {
  call(call: ApiCall): Promise<CallAnswer>;
}

/**
 * The stream's actions as calls of the engine's one door (`Engine.call`): each builds the call of its
 * internal catalogue endpoint, and the engine judges it as any REST call (authentication, charge, the
 * account's lane). Used by the stream's transports and the simulator's consumers alike, and by the
 * operator API for its charge; it decides nothing.
 *
 * With `hosting` (a store several processes share), this process is the host of the connections it
 * opens: each is written with the host, the host's liveness record holds the account while it serves
 * one of its connections (taken after the open commits, released after the last close, one account's
 * in turn so a release never undoes a later hold), and an open refused for want of a place first ends
 * the account's connections whose hosts are dead, then is tried once more.
 */
export class StreamCalls {
  private readonly lost: LostHosts | undefined;
  /** Each account's opens and closes in turn on this process, for its liveness holding. */
  private readonly holdings = new Map<string, Promise<unknown>>();

  constructor(
    private readonly door: CallDoor,
    private readonly hosting?: StreamHosting,
  ) {
    this.lost = hosting && new LostHosts(door, hosting);
  }

  /** 200 `{connection}` with the general allowance's figures; 401, 403, 429 (places or opens an hour). */
  open(credentials: StreamCredentials | undefined, transport: StreamTransport): Promise<CallAnswer> {
    const hosting = this.hosting;
    if (!hosting || !credentials) return this.openCall(credentials, transport);
    return this.inTurn(credentials.username, async () => {
      let answer = await this.openCall(credentials, transport);
      // Only a caller the judge authenticated hears of a place: only then are dead hosts looked for.
      if (answer.status === 429 && limitOf(answer) === 'stream_connections' && (await this.lost!.freePlaces(credentials.username))) {
        answer = await this.openCall(credentials, transport);
      }
      if (answer.status === 200) await hosting.liveness.hold(hosting.host, credentials.username);
      return answer;
    });
  }

  private openCall(credentials: StreamCredentials | undefined, transport: StreamTransport): Promise<CallAnswer> {
    const params = this.hosting ? { transport, host: this.hosting.host } : { transport };
    return this.door.call({ version: CURRENT_VERSION, endpoint: 'stream.open', credentials, params });
  }

  /** 200 `{hash, seq, charged}` with the figures after the charge; 401, 403, 404 (unknown hash), 429, 400. */
  subscribe(credentials: StreamCredentials | undefined, connection: string, hash: string): Promise<CallAnswer> {
    return this.door.call({ version: CURRENT_VERSION, endpoint: 'stream.subscribe', credentials, params: { connection, hash } });
  }

  unsubscribe(username: string, connection: string, hash: string): Promise<CallAnswer> {
    return this.door.call({ version: CURRENT_VERSION, endpoint: 'stream.unsubscribe', connection: { username, id: connection }, params: { hash } });
  }

  deliveries(username: string, minutes: DeliveredCounts): Promise<CallAnswer> {
    return this.door.call({ version: CURRENT_VERSION, endpoint: 'stream.deliveries', connection: { username }, params: { minutes } });
  }

  /** 200 `{changed, hosts}`; the account's holding is released when this host serves none of its connections. */
  close(username: string, connection: string, reason: string): Promise<CallAnswer> {
    const call = () => this.door.call({ version: CURRENT_VERSION, endpoint: 'stream.close', connection: { username, id: connection }, params: { reason } });
    const hosting = this.hosting;
    if (!hosting) return call();
    return this.inTurn(username, async () => {
      const answer = await call();
      const hosts = (answer.body as { hosts?: string[] } | undefined)?.hosts;
      if (answer.status === 200 && hosts && !hosts.includes(hosting.host)) await hosting.liveness.released(hosting.host, username);
      return answer;
    });
  }

  /**
   * The operator's charge of stream usage injected by hand: `cost` credits from the account's general
   * allowance. 200 with the figures after it; 429 with those before it when they cannot pay; 404 for no
   * such account. Only the operator builds it (the operator API, once the admin token is checked).
   */
  charge(username: string, cost: number): Promise<CallAnswer> {
    return this.door.call({ version: CURRENT_VERSION, endpoint: 'stream.charge', operator: { username }, params: { cost } });
  }

  /** Ends what dead hosts held (see `LostHosts.sweep`); 0 without hosting. */
  sweep(known?: string): Promise<number> {
    return this.lost ? this.lost.sweep(undefined, known) : Promise.resolve(0);
  }

  private inTurn<T>(username: string, work: () => Promise<T>): Promise<T> {
    const before = this.holdings.get(username) ?? Promise.resolve();
    const run = before.then(work, work);
    const settled = run.then(() => undefined, () => undefined);
    this.holdings.set(username, settled);
    void settled.then(() => {
      if (this.holdings.get(username) === settled) this.holdings.delete(username);
    });
    return run;
  }
}

/** The limit a 429 names (`stream_connections`, `stream_opens`), where the refusal says. */
export const limitOf = (answer: CallAnswer): string | undefined => {
  const limit = (answer.body as { limit?: unknown } | undefined)?.limit;
  return typeof limit === 'string' ? limit : undefined;
};
