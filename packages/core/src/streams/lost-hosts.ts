import type { HostLiveness } from '../kernel/host-liveness.ts';
import type { EngineServices } from '../handling/handler.ts';
import { connectionHosts, streamConnectionsDecider, streamConnectionsStream } from './stream-connections.ts';

/** The reason a lost host's connections end with (`StreamDisconnected.reason`). */
export const HOST_LOST = 'host lost';

/** A host silent this long (store time) is taken for dead: five missed renewals at the default pace. */
export const DEFAULT_LAPSE_MS = 5_000;

/** Accounts one sweep ends a lost host's connections on, at most: a sweep is a bounded piece of work. */
export const SWEEP_ACCOUNTS = 16;

/** The process that hosts stream connections, as its liveness records know it. */
export interface StreamHosting {
  /** This process's id as a host: recorded on every connection it opens. */
  host: string;
  liveness: HostLiveness;
  /** Silence after which a host is taken for dead (`DEFAULT_LAPSE_MS`). */
  lapseMs: number;
  /**
   * Whether this host may take others' silence for death now: only once its own renewals have gone
   * through without a break for a lapse. After the store was away, everyone's records are old, and the
   * first to be back must not end the others' connections before they had a chance to renew. Absent: always.
   */
  mayJudge?: () => boolean;
}

/**
 * Ends, with ordinary `StreamDisconnected` events, the connections of hosts that died without closing
 * them (a process killed, a machine gone): they would otherwise hold the account's `stream_connections`
 * places, and count subscribed seconds, for ever. Each ends as its host was last known alive. Found two
 * ways: by a periodic sweep of lapsed hosts, and when an account's new connection would be refused for
 * want of a place.
 */
export class LostHosts {
  constructor(
    private readonly engine: Pick<EngineServices, 'command'>,
    private readonly hosting: StreamHosting,
  ) {}

  /**
   * One sweep: the hosts lapsed now, their connections ended account by account (at most `accounts` of
   * them), each account's holding then released; a lapsed host whose last holdings these were is forgotten. Never
   * this process's own host (a stalled event loop is no death: it renews at its next beat). `known`: only
   * that host, known dead rather than judged so (`HostLiveness.expire` listed it first). The number of
   * connections ended.
   */
  async sweep(accounts = SWEEP_ACCOUNTS, known?: string): Promise<number> {
    const { liveness, lapseMs, host: self } = this.hosting;
    if (known === undefined && this.hosting.mayJudge?.() === false) return 0;
    let ended = 0;
    let budget = accounts;
    for (const lost of await liveness.lapsed(lapseMs, accounts)) {
      if (lost.host === self || (known !== undefined && lost.host !== known)) continue;
      if (lost.accounts.length === 0) {
        await liveness.forget(lost.host);
        continue;
      }
      for (const username of lost.accounts) {
        if (budget-- <= 0) return ended;
        ended += await this.release(username, lost.host, lost.aliveAt);
        await liveness.released(lost.host, username);
      }
      // Fewer than asked for: these were all it held.
      if (lost.accounts.length < accounts) await liveness.forget(lost.host);
    }
    return ended;
  }

  /**
   * Before a connection is refused for want of a place: ends the account's connections held by hosts no
   * longer alive. Whether any place was freed. Bounded by the account's connections.
   */
  async freePlaces(username: string): Promise<boolean> {
    const { liveness, lapseMs, host: self } = this.hosting;
    if (this.hosting.mayJudge?.() === false) return false;
    const state = await this.engine.command((uow) => uow.load(streamConnectionsDecider, streamConnectionsStream(username)));
    const hosts = connectionHosts(state).filter((h) => h !== self);
    if (hosts.length === 0) return false;
    let ended = 0;
    for (const [host, aliveAt] of await liveness.lapsedAmong(hosts, lapseMs)) ended += await this.release(username, host, aliveAt);
    return ended > 0;
  }

  /** One account's connections of `host` ended as it was last alive (now, when that is unknown). */
  private release(username: string, host: string, aliveAt: number | undefined): Promise<number> {
    return this.engine.command(async (uow) => {
      const { events } = await uow.execute(streamConnectionsDecider, streamConnectionsStream(username), {
        type: 'EndLostHostConnections',
        host,
        aliveAt: aliveAt ?? uow.now,
        reason: HOST_LOST,
      });
      return events.length;
    });
  }
}
