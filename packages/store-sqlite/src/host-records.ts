import type Database from 'better-sqlite3';
import type { HostLiveness, LapsedHost } from '@sdp/core/kernel';

/**
 * `HostLiveness` in the file's side tables (`live_hosts`, `live_host_accounts`). Every process opening
 * the file runs on this machine, so lapse is judged by its clock. Writes go through the store's own
 * group commit (`write`), reads straight to the file.
 */
export class SqliteHostRecords implements HostLiveness {
  private readonly sql;

  constructor(
    db: Database.Database,
    private readonly write: (run: () => void) => Promise<void>,
    private readonly read: <T>(run: () => T) => T,
    private readonly now: () => number = Date.now,
  ) {
    this.sql = {
      renew: db.prepare(
        `INSERT INTO live_hosts (host, renewed_at, alive_at) VALUES (?, ?, ?)
         ON CONFLICT (host) DO UPDATE SET renewed_at = excluded.renewed_at, alive_at = excluded.alive_at`,
      ),
      hold: db.prepare('INSERT OR IGNORE INTO live_host_accounts (host, account) VALUES (?, ?)'),
      lapsed: db.prepare('SELECT host, alive_at FROM live_hosts WHERE renewed_at < ? ORDER BY renewed_at LIMIT ?'),
      accounts: db.prepare('SELECT account FROM live_host_accounts WHERE host = ? ORDER BY account LIMIT ?').pluck(),
      one: db.prepare('SELECT renewed_at, alive_at FROM live_hosts WHERE host = ?'),
      expire: db.prepare('UPDATE live_hosts SET renewed_at = 0 WHERE host = ?'),
      released: db.prepare('DELETE FROM live_host_accounts WHERE host = ? AND account = ?'),
      forgetHost: db.prepare('DELETE FROM live_hosts WHERE host = ?'),
      forgetAccounts: db.prepare('DELETE FROM live_host_accounts WHERE host = ?'),
      clearHosts: db.prepare('DELETE FROM live_hosts'),
      clearAccounts: db.prepare('DELETE FROM live_host_accounts'),
    };
  }

  renew(host: string, aliveAt: number): Promise<void> {
    return this.write(() => void this.sql.renew.run(host, this.now(), aliveAt));
  }

  hold(host: string, account: string): Promise<void> {
    return this.write(() => void this.sql.hold.run(host, account));
  }

  async lapsed(lapseMs: number, limit: number): Promise<LapsedHost[]> {
    return this.read(() => {
      const rows = this.sql.lapsed.all(this.now() - lapseMs, limit) as { host: string; alive_at: number }[];
      return rows.map((r) => ({ host: r.host, aliveAt: r.alive_at, accounts: this.sql.accounts.all(r.host, limit) as string[] }));
    });
  }

  async lapsedAmong(hosts: readonly string[], lapseMs: number): Promise<Map<string, number | undefined>> {
    const out = new Map<string, number | undefined>();
    const horizon = this.now() - lapseMs;
    for (const host of new Set(hosts)) {
      const row = this.read(() => this.sql.one.get(host)) as { renewed_at: number; alive_at: number } | undefined;
      if (!row) out.set(host, undefined);
      else if (row.renewed_at < horizon) out.set(host, row.alive_at);
    }
    return out;
  }

  expire(host: string): Promise<void> {
    return this.write(() => void this.sql.expire.run(host));
  }

  released(host: string, account: string): Promise<void> {
    return this.write(() => void this.sql.released.run(host, account));
  }

  forget(host: string): Promise<void> {
    return this.write(() => {
      this.sql.forgetAccounts.run(host);
      this.sql.forgetHost.run(host);
    });
  }

  /** Inside the store's clear: the processes renew at their next beat. */
  clear(): void {
    this.sql.clearAccounts.run();
    this.sql.clearHosts.run();
  }
}
