/**
 * Which processes are alive, kept beside the log and never in it: a process that holds live work (a
 * stream connection, whose opening is an event) renews its record every few seconds, and a process
 * killed without a word stops renewing. Another process on the same store then finds it lapsed and ends,
 * with ordinary events, what the log says it held. Renewals are not events: a record a second per process
 * would be noise in every account's history.
 *
 * Lapse is judged by the store's own time (the database's clock on PostgreSQL, the machine's for a SQLite
 * file, which only one machine opens), so two hosts whose clocks disagree do not think each other dead.
 * `aliveAt` is the host's own clock at its last renewal, the time its events carry: work it held ends
 * there, not when someone noticed.
 */
export interface HostLiveness {
  /** `host` is alive: its record is renewed now (store time), `aliveAt` being its own clock. */
  renew(host: string, aliveAt: number): Promise<void>;
  /**
   * `host` is about to hold something of `account`: noted before the event that says so is written, so a
   * sweep that finds the host lapsed knows where to look without reading the log.
   */
  hold(host: string, account: string): Promise<void>;
  /**
   * Hosts not renewed for `lapseMs` of store time, longest silent first: at most `limit` of them, each with
   * at most `limit` of the accounts it holds (a host with none left is listed with none, to be forgotten).
   */
  lapsed(lapseMs: number, limit: number): Promise<LapsedHost[]>;
  /**
   * Which of `hosts` are not alive: lapsed ones with their `aliveAt`, and hosts without a record (forgotten,
   * or never renewed) with `undefined`. Alive ones are left out.
   */
  lapsedAmong(hosts: readonly string[], lapseMs: number): Promise<Map<string, number | undefined>>;
  /** `host` is known dead (its process was seen to exit): lapsed from now on, whatever its last renewal. */
  expire(host: string): Promise<void>;
  /** What `host` held of `account` has been ended (by whoever swept it). */
  released(host: string, account: string): Promise<void>;
  /** Drops `host`'s record and its holdings (it closed cleanly, or a sweep ended all it held). */
  forget(host: string): Promise<void>;
}

export interface LapsedHost {
  host: string;
  /** The host's own clock at its last renewal (Unix ms): the last moment it is known to have been alive. */
  aliveAt: number;
  accounts: string[];
}

/**
 * Liveness records in this process's memory, on a clock given to it: for several hosts of one process
 * (tests, simulations) over a store that lives in memory. Processes sharing a store need the store's.
 */
export class MemoryHostLiveness implements HostLiveness {
  private readonly hosts = new Map<string, { renewedAt: number; aliveAt: number }>();
  private readonly holdings = new Map<string, Set<string>>();

  constructor(private readonly clock: { now(): number }) {}

  async renew(host: string, aliveAt: number): Promise<void> {
    this.hosts.set(host, { renewedAt: this.clock.now(), aliveAt });
  }

  async hold(host: string, account: string): Promise<void> {
    let accounts = this.holdings.get(host);
    if (!accounts) this.holdings.set(host, (accounts = new Set()));
    accounts.add(account);
  }

  async lapsed(lapseMs: number, limit: number): Promise<LapsedHost[]> {
    const horizon = this.clock.now() - lapseMs;
    return [...this.hosts.entries()]
      .filter(([, r]) => r.renewedAt < horizon)
      .sort((a, b) => a[1].renewedAt - b[1].renewedAt)
      .slice(0, limit)
      .map(([host, r]) => ({ host, aliveAt: r.aliveAt, accounts: [...(this.holdings.get(host) ?? [])].sort().slice(0, limit) }));
  }

  async lapsedAmong(hosts: readonly string[], lapseMs: number): Promise<Map<string, number | undefined>> {
    const horizon = this.clock.now() - lapseMs;
    const out = new Map<string, number | undefined>();
    for (const host of hosts) {
      const r = this.hosts.get(host);
      if (!r) out.set(host, undefined);
      else if (r.renewedAt < horizon) out.set(host, r.aliveAt);
    }
    return out;
  }

  async expire(host: string): Promise<void> {
    const r = this.hosts.get(host);
    if (r) r.renewedAt = -Infinity;
  }

  async released(host: string, account: string): Promise<void> {
    this.holdings.get(host)?.delete(account);
  }

  async forget(host: string): Promise<void> {
    this.hosts.delete(host);
    this.holdings.delete(host);
  }
}
