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
