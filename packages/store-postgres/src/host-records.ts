import type pg from 'pg';
import type { HostLiveness, LapsedHost } from '@sdp/core/kernel';

/**
 * `HostLiveness` in the schema's side tables (`live_hosts`, `live_host_accounts`). Lapse is judged by
 * the database's clock (`clock_timestamp()`), the one clock every server sharing it reads alike.
 */
export class PostgresHostRecords implements HostLiveness {
  constructor(
    /** The schema, quoted. */
    private readonly s: string,
    private readonly query: (text: string, values?: unknown[]) => Promise<pg.QueryResult>,
  ) {}

  async renew(host: string, aliveAt: number): Promise<void> {
    await this.query(
      `INSERT INTO ${this.s}.live_hosts (host, renewed_at, alive_at) VALUES ($1, clock_timestamp(), $2)
       ON CONFLICT (host) DO UPDATE SET renewed_at = excluded.renewed_at, alive_at = excluded.alive_at`,
      [host, aliveAt],
    );
  }

  async hold(host: string, account: string): Promise<void> {
    await this.query(`INSERT INTO ${this.s}.live_host_accounts (host, account) VALUES ($1, $2) ON CONFLICT DO NOTHING`, [host, account]);
  }

  async lapsed(lapseMs: number, limit: number): Promise<LapsedHost[]> {
    // One round trip: the lapsed hosts, each with its first `limit` accounts.
    const res = await this.query(
      `SELECT h.host, h.alive_at,
              coalesce((SELECT array_agg(a.account ORDER BY a.account) FROM
                (SELECT account FROM ${this.s}.live_host_accounts WHERE host = h.host ORDER BY account LIMIT $2) a), '{}') AS accounts
         FROM ${this.s}.live_hosts h
        WHERE h.renewed_at < clock_timestamp() - make_interval(secs => $1::double precision / 1000)
        ORDER BY h.renewed_at LIMIT $2`,
      [lapseMs, limit],
    );
    return res.rows.map((r) => ({ host: r.host as string, aliveAt: Number(r.alive_at), accounts: r.accounts as string[] }));
  }

  async lapsedAmong(hosts: readonly string[], lapseMs: number): Promise<Map<string, number | undefined>> {
    const wanted = [...new Set(hosts)];
    const out = new Map<string, number | undefined>(wanted.map((h) => [h, undefined]));
    if (wanted.length === 0) return out;
    const res = await this.query(
      `SELECT host, alive_at, renewed_at < clock_timestamp() - make_interval(secs => $2::double precision / 1000) AS lapsed
         FROM ${this.s}.live_hosts WHERE host = ANY($1)`,
      [wanted, lapseMs],
    );
    for (const r of res.rows) {
      if (r.lapsed) out.set(r.host as string, Number(r.alive_at));
      else out.delete(r.host as string);
    }
    return out;
  }

  async expire(host: string): Promise<void> {
    await this.query(`UPDATE ${this.s}.live_hosts SET renewed_at = '-infinity' WHERE host = $1`, [host]);
  }

  async released(host: string, account: string): Promise<void> {
    await this.query(`DELETE FROM ${this.s}.live_host_accounts WHERE host = $1 AND account = $2`, [host, account]);
  }

  async forget(host: string): Promise<void> {
    await this.query(
      `WITH a AS (DELETE FROM ${this.s}.live_host_accounts WHERE host = $1) DELETE FROM ${this.s}.live_hosts WHERE host = $1`,
      [host],
    );
  }
}
