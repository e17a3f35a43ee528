import { createHash } from 'node:crypto';
import { deserialize, serialize } from 'node:v8';
import pg from 'pg';
import {
  ANY_VERSION,
  CommitSignal,
  ForeignWrites,
  StoreUnavailable,
  VersionConflict,
  type AppendResult,
  type CommitListener,
  type EventStore,
  type StoreCapabilities,
  type Snapshot,
  type StopWatching,
  type StoredEvent,
  type StreamAppend,
} from '@sdp/core/kernel';
import { PostgresHostRecords } from './host-records.ts';
import { appendFunction, MIGRATIONS, safeHead, SCHEMA_VERSION } from './schema.ts';

export interface PostgresStoreOptions {
  /** The PostgreSQL schema holding the tables (created if missing); also `?schema=` in the URL. */
  schema?: string;
  /** Connections in the pool. */
  poolSize?: number;
  /** How long to wait for a connection before answering `StoreUnavailable` (ms). */
  connectTimeoutMs?: number;
  /** At most this many appends share one round trip (group commit). */
  maxGroup?: number;
}

/**
 * The database cannot be reached (or went away mid-request). It says where, and whether a write may have
 * landed. The core's class, so the engine answers 503 for it.
 */
export { StoreUnavailable };

interface Request {
  batch: StreamAppend[];
  /** Each event's data as JSON text, in the batch's order: made when the append is asked, so data that has none fails its own request. */
  data: string[];
  resolve: (r: AppendResult) => void;
  reject: (e: unknown) => void;
}

/** How often a watched store asks whether another process appended, while its LISTEN connection is down. */
const FOREIGN_POLL_MS = 200;
/** How long a read waits for this handle's own acknowledged writes to become readable (ms), at most. */
const OWN_WRITES_WAIT_MS = 2000;

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

const CONNECTION_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EHOSTUNREACH', '57P01', '57P02', '57P03', '53300']);

/**
 * The shared store: several server processes append to one PostgreSQL database, each group of appends in
 * one call of a server-side function (one round trip, one transaction). Appends of one stream take turns
 * on that stream's lock, so expected versions are checked by the database; appends of different streams
 * run and commit side by side, and readers read the log only up to its safe head (schema.ts), so no
 * reader skips a position that commits later. Appends that arrive while this process's previous group
 * is on its way share the next round trip and transaction. Commits are announced with NOTIFY.
 */
export class PostgresEventStore implements EventStore {
  private readonly pool: pg.Pool;
  private readonly s: string;
  private readonly where: string;
  private readonly maxGroup: number;
  /**
   * A database server any machine may connect to; the append function checks the last event id a
   * pipelined writer expects (`StreamAppend.expectedLastId`); reads are parsed afresh; the database keeps
   * the records of the servers sharing it.
   */
  readonly capabilities: StoreCapabilities;
  private queue: Request[] = [];
  private flushing = false;
  private scheduled = false;
  private closed = false;
  private readonly commits = new CommitSignal();
  /**
   * Other processes' commits while the LISTEN connection is down: seen by the safe head growing, one
   * indexed query a poll.
   */
  private readonly foreign: ForeignWrites;
  private headSeen = -1;
  /** The NOTIFY channel of this schema: a hash, since a channel name is at most 63 bytes. */
  private readonly channel: string;
  private readonly connection: pg.ClientConfig;
  /** The LISTEN connection, while watched and connected. */
  private listener: pg.Client | undefined;
  private listenWanted = false;
  /** The highest position this handle has acknowledged: its own reads wait (a while) for it to be readable. */
  private ownHigh = 0;
  /** A read's wait for `ownHigh` ran out, and no read has reached it since. */
  private heldBack = false;
  /** The highest position announced committed (own writes, NOTIFY) and the safe head last told to watchers. */
  private announced = 0;
  private safeTold = 0;
  private settling = false;

  private constructor(pool: pg.Pool, schema: string, where: string, maxGroup: number, connection: pg.ClientConfig) {
    this.pool = pool;
    this.s = quoteIdent(schema);
    this.where = where;
    this.maxGroup = maxGroup;
    this.connection = connection;
    this.channel = `sdp_log_${createHash('sha256').update(schema).digest('hex').slice(0, 24)}`;
    const hostRecords = new PostgresHostRecords(this.s, (text, values) => this.query(text, values));
    this.capabilities = { kind: 'postgres', reach: 'network', checksLastEventId: true, freshReads: true, hostRecords };
    this.foreign = new ForeignWrites(
      this.commits,
      async () => {
        if (this.closed) return false;
        const head = await this.safeHeadNow();
        const changed = this.headSeen >= 0 && head !== this.headSeen;
        this.headSeen = head;
        return changed;
      },
      (tick) => {
        const timer = setInterval(tick, FOREIGN_POLL_MS);
        timer.unref();
        return () => clearInterval(timer);
      },
    );
  }

  watchCommits(listener: CommitListener): StopWatching {
    const stop = this.commits.watch(listener);
    this.followOthers();
    return () => {
      stop();
      this.followOthers();
    };
  }

  /** LISTENs while watched, on a connection outside the pool (a pooled one would be handed to queries). */
  private followOthers(): void {
    if (this.commits.watched && !this.listenWanted && !this.closed) {
      this.listenWanted = true;
      void this.listen();
    } else if (!this.commits.watched && this.listenWanted) {
      this.listenWanted = false;
      this.foreign.stop();
      const client = this.listener;
      this.listener = undefined;
      void client?.end().catch(() => {});
    }
  }

  private async listen(): Promise<void> {
    const client = new pg.Client(this.connection);
    client.on('error', () => {});
    client.on('notification', (m) => this.heard(m.payload));
    client.on('end', () => {
      if (this.listener !== client) return;
      this.listener = undefined;
      this.listenerLost();
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${this.channel}`);
    } catch {
      void client.end().catch(() => {});
      this.listenerLost();
      return;
    }
    if (!this.listenWanted || this.closed) {
      void client.end().catch(() => {});
      return;
    }
    this.listener = client;
    this.foreign.stop();
    // Commits made before LISTEN took effect were not announced to it: the watchers read once regardless.
    this.commits.notify();
  }

  /** Without the LISTEN connection, the head poll stands in until a new one is listening. */
  private listenerLost(): void {
    if (!this.listenWanted || this.closed) return;
    this.foreign.follow();
    setTimeout(() => {
      if (this.listenWanted && !this.listener && !this.closed) void this.listen();
    }, 1000).unref();
  }

  /** A NOTIFY: `first last` of a committed group, or `clear`. */
  private heard(payload: string | undefined): void {
    if (payload === 'clear') {
      this.ownHigh = this.announced = this.safeTold = 0;
      this.commits.notify();
      return;
    }
    const last = Number(payload?.split(' ')[1]);
    if (!(last > this.announced)) return;
    this.announced = last;
    void this.settle();
  }

  /**
   * Tells the watchers each time the safe head moves, until it reaches what was announced: a commit is
   * readable only once every transaction that took a lower position has ended, and the notice of that
   * transaction's commit may never come (it may have rolled back, or be another schema's).
   */
  private async settle(): Promise<void> {
    if (this.settling) return;
    this.settling = true;
    try {
      for (let wait = 1; !this.closed && this.commits.watched; wait = Math.min(wait * 2, 50)) {
        const res = await this.query(`SELECT ${safeHead(this.s)} AS safe, (SELECT coalesce(max(position), 0) FROM ${this.s}.events) AS top`);
        const safe = Number(res.rows[0].safe);
        if (safe > this.safeTold) {
          this.safeTold = safe;
          this.commits.notify();
        }
        // Announced events deleted since (dropTypes) are not waited for: the log's top bounds the wait.
        if (safe >= Math.min(this.announced, Number(res.rows[0].top))) break;
        await sleep(wait);
      }
    } catch {
      // The store is away: the poll that stands in for LISTEN, or the next notice, tries again.
    } finally {
      this.settling = false;
    }
  }

  static async connect(url: string, options: PostgresStoreOptions = {}): Promise<PostgresEventStore> {
    const parsed = new URL(url);
    const schema = options.schema ?? parsed.searchParams.get('schema') ?? 'public';
    parsed.searchParams.delete('schema');
    const where = `PostgreSQL at ${parsed.hostname}:${parsed.port || 5432}${parsed.pathname} (schema ${schema})`;
    const pool = new pg.Pool({
      connectionString: parsed.toString(),
      max: options.poolSize ?? 10,
      connectionTimeoutMillis: options.connectTimeoutMs ?? 5000,
    });
    // An idle connection dropped by the server is an event, not a crash; the pool opens a new one when needed.
    pool.on('error', () => {});
    // So is a checked-out connection dropped between two queries: the next query reports it.
    pool.on('connect', (client) => client.on('error', () => {}));
    const store = new PostgresEventStore(pool, schema, where, options.maxGroup ?? 256, {
      connectionString: parsed.toString(),
      connectionTimeoutMillis: options.connectTimeoutMs ?? 5000,
      // So an operator (and a test) can tell the listening connections apart in pg_stat_activity.
      application_name: `sdp listen ${schema}`.slice(0, 63),
    });
    try {
      await store.prepare();
    } catch (error) {
      await pool.end().catch(() => {});
      throw store.explain(error, 'cannot prepare the event store');
    }
    return store;
  }

  /** Creates or migrates the tables, once, even when several processes start together. */
  private async prepare(): Promise<void> {
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      await client.query(`SELECT pg_advisory_xact_lock(hashtext($1))`, [`${this.s}.schema`]);
      await client.query(`CREATE SCHEMA IF NOT EXISTS ${this.s}`);
      await client.query(`CREATE TABLE IF NOT EXISTS ${this.s}.sdp_meta (key text PRIMARY KEY, value text NOT NULL)`);
      const row = await client.query(`SELECT value FROM ${this.s}.sdp_meta WHERE key = 'schema_version'`);
      const version = row.rows.length > 0 ? Number(row.rows[0].value) : 0;
      if (version > SCHEMA_VERSION) {
        throw new Error(`${this.where} has schema version ${version}, newer than this build knows (${SCHEMA_VERSION}); upgrade the software`);
      }
      for (let v = version; v < SCHEMA_VERSION; v++) await client.query(MIGRATIONS[v]!(this.s));
      await client.query(appendFunction(this.s));
      await client.query(
        `INSERT INTO ${this.s}.sdp_meta (key, value) VALUES ('schema_version', $1) ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
        [String(SCHEMA_VERSION)],
      );
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK').catch(() => {});
      throw error;
    } finally {
      client.release();
    }
  }

  append(batch: StreamAppend[]): Promise<AppendResult> {
    return new Promise<AppendResult>((resolve, reject) => {
      if (this.closed) return reject(new StoreUnavailable(`${this.where}: the store is closed`));
      const seen = new Set<string>();
      for (const { stream } of batch) {
        if (seen.has(stream)) return reject(new Error(`stream ${stream} appears twice in one append`));
        seen.add(stream);
      }
      const data: string[] = [];
      try {
        for (const { events } of batch) for (const e of events) data.push(JSON.stringify(e.data ?? null));
      } catch (error) {
        // A bigint or a cycle: this append is refused, not the group it would have joined (nor the process).
        return reject(new TypeError(`an event's data cannot be stored as JSON (${(error as Error).message}); nothing was written`));
      }
      this.queue.push({
        batch,
        data,
        resolve: (result) => {
          if (result.lastPosition > this.ownHigh) this.ownHigh = result.lastPosition;
          this.commits.wrote(batch, result);
          if (this.commits.watched && result.lastPosition > this.announced) {
            // Told at once (the contract), and again when readable, if an older transaction held it back.
            this.announced = result.lastPosition;
            this.safeTold = Math.max(this.safeTold, result.lastPosition - 1);
            void this.settle();
          }
          resolve(result);
        },
        reject,
      });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.flushing || this.scheduled || this.queue.length === 0) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      void this.flush();
    });
  }

  /** Sends every queued append in one call of the append function: one transaction, one commit. */
  private async flush(): Promise<void> {
    this.flushing = true;
    const group = this.queue.splice(0, this.maxGroup);
    try {
      await this.sendGroup(group);
    } finally {
      this.flushing = false;
      this.schedule();
    }
  }

  private async sendGroup(group: Request[]): Promise<void> {
    const reqEntries: number[] = [];
    const entStream: string[] = [];
    const entExpect: number[] = [];
    const entLast: (string | null)[] = [];
    const entEvents: number[] = [];
    const evId: string[] = [];
    const evType: string[] = [];
    const evData: string[] = [];
    const evTime: number[] = [];
    const evSchema: number[] = [];
    for (const { batch, data } of group) {
      evData.push(...data);
      reqEntries.push(batch.length);
      for (const { stream, expectedVersion, events, expectedLastId } of batch) {
        entStream.push(stream);
        entExpect.push(expectedVersion === ANY_VERSION ? -1 : expectedVersion);
        entLast.push(expectedLastId ?? null);
        entEvents.push(events.length);
        for (const e of events) {
          evId.push(e.id);
          evType.push(e.type);
          evTime.push(e.time);
          evSchema.push(e.schemaVersion ?? 1);
        }
      }
    }
    let out: number[];
    let client: pg.PoolClient;
    try {
      client = await this.pool.connect();
    } catch (error) {
      const failure = this.explain(error, 'append failed, nothing was written');
      for (const r of group) r.reject(failure);
      return;
    }
    const backend = (client as unknown as { processID: number }).processID;
    try {
      const res = await client.query({
        text: `SELECT ${this.s}.sdp_append($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) AS out`,
        values: [reqEntries, entStream, entExpect, entLast, entEvents, evId, evType, evData, evTime, evSchema],
      });
      out = (res.rows[0].out as string[]).map(Number);
    } catch (error) {
      const lost = isConnectionError(error);
      client.release(lost ? (error as Error) : undefined);
      if (lost) return this.settleInDoubt(group, backend, error);
      if (group.length > 1) {
        // One bad request (say, a value the database refuses) must not fail the others: send each alone.
        for (const r of group) await this.sendGroup([r]);
        return;
      }
      const failure = this.explain(error, 'append failed', true);
      for (const r of group) r.reject(failure);
      return;
    }
    const nEnt = entStream.length;
    let first = Number.MAX_SAFE_INTEGER;
    let last = 0;
    group.forEach((r, i) => {
      const status = out[nEnt + i]!;
      const count = r.batch.reduce((n, entry) => n + entry.events.length, 0);
      // A request that wrote nothing answers the log's last position: nothing to announce.
      if (status > 0 && count > 0) {
        first = Math.min(first, status - count + 1);
        last = Math.max(last, status);
      }
    });
    if (last > 0) {
      // After the commit, in a transaction of its own: a NOTIFY inside the append's transaction would
      // take the database's notify lock until that commit is durable, and commits would take turns again.
      // Not waited for: the answer goes out now, and a notice lost with the process costs a watcher in
      // another process a delay until the next commit, never an event.
      client
        .query('SELECT pg_notify($1, $2)', [this.channel, `${first} ${last}`])
        .then(() => client.release(), (error) => client.release(error as Error));
    } else {
      client.release();
    }
    let e = 0;
    group.forEach((r, i) => {
      const status = out[nEnt + i]!;
      const versions = out.slice(e, e + r.batch.length);
      if (status < 0) {
        const at = -status - 1;
        const entry = entStream[at]!;
        r.reject(new VersionConflict(entry, entExpect[at]!, out[at]!));
      } else {
        r.resolve({ versions, lastPosition: status });
      }
      e += r.batch.length;
    });
  }

  /**
   * The connection died with the group's transaction in flight: it may have committed or not. Billing
   * data cannot be left in doubt, so once the server answers again the backend that ran it is ended
   * (which settles its transaction either way), and the log is asked whether each request's events are
   * there. Only when the server stays away does the append fail as "may or may not have been written".
   */
  private async settleInDoubt(group: Request[], backend: number, error: unknown): Promise<void> {
    const firstIds = group.map((r) => r.batch.find((e) => e.events.length > 0)?.events[0]!.id);
    if (firstIds.every((id) => id === undefined)) {
      const failure = this.explain(error, 'append failed, nothing was written');
      for (const r of group) r.reject(failure);
      return;
    }
    const lastIds = group.flatMap((r) => r.batch.map((e) => e.events[e.events.length - 1]?.id)).filter((id): id is string => !!id);
    for (const wait of [100, 500, 1500]) {
      await new Promise((r) => setTimeout(r, wait));
      let client: pg.PoolClient;
      try {
        client = await this.pool.connect();
      } catch {
        continue;
      }
      try {
        await client.query('SELECT pg_terminate_backend($1)', [backend]);
        for (let i = 0; i < 100; i++) {
          const alive = await client.query('SELECT 1 FROM pg_stat_activity WHERE pid = $1', [backend]);
          if (alive.rows.length === 0) break;
          await new Promise((r) => setTimeout(r, 20));
        }
        const found = await client.query(`SELECT id, version, position FROM ${this.s}.events WHERE id = ANY($1)`, [[...firstIds.filter(Boolean), ...lastIds]]);
        const streams = group.flatMap((r) => r.batch.map((e) => e.stream));
        const heads = await client.query(`SELECT stream, max(version) AS version FROM ${this.s}.events WHERE stream = ANY($1) GROUP BY stream`, [streams]);
        client.release();
        const byId = new Map(found.rows.map((row) => [row.id as string, { version: Number(row.version), position: Number(row.position) }]));
        const head = new Map(heads.rows.map((row) => [row.stream as string, Number(row.version)]));
        const committed = firstIds.some((id) => id !== undefined && byId.has(id));
        group.forEach((r, i) => {
          const first = firstIds[i];
          if (!committed) return r.reject(this.explain(error, 'append failed, nothing was written'));
          if (first !== undefined && !byId.has(first)) {
            // The group committed without this request: it was refused for a version conflict.
            const entry = r.batch.find((e) => e.expectedVersion !== ANY_VERSION && e.expectedVersion !== (head.get(e.stream) ?? 0)) ?? r.batch[0]!;
            return r.reject(new VersionConflict(entry.stream, entry.expectedVersion, head.get(entry.stream) ?? 0));
          }
          const versions = r.batch.map((e) =>
            e.events.length > 0 ? byId.get(e.events[e.events.length - 1]!.id)!.version : e.expectedVersion === ANY_VERSION ? (head.get(e.stream) ?? 0) : e.expectedVersion,
          );
          const positions = r.batch.flatMap((e) => (e.events.length > 0 ? [byId.get(e.events[e.events.length - 1]!.id)!.position] : []));
          r.resolve({ versions, lastPosition: positions.length > 0 ? Math.max(...positions) : 0 });
        });
        return;
      } catch {
        client.release(true);
      }
    }
    const failure = this.explain(error, 'append failed', true);
    for (const r of group) r.reject(failure);
  }

  async readStream(stream: string, afterVersion = 0): Promise<StoredEvent[]> {
    const res = await this.query(
      `SELECT position, stream, version, id, type, data, time, schema_version FROM ${this.s}.events WHERE stream = $1 AND version > $2 ORDER BY version`,
      [stream, afterVersion],
    );
    return res.rows.map(toEvent);
  }

  async readAll(afterPosition = 0, limit = Number.MAX_SAFE_INTEGER): Promise<StoredEvent[]> {
    return this.readBounded(`position > $1`, [afterPosition, limit], afterPosition, limit);
  }

  async readTypes(types: readonly string[], afterPosition = 0, limit = Number.MAX_SAFE_INTEGER): Promise<StoredEvent[]> {
    if (types.length === 0) return [];
    return this.readBounded(`type = ANY($3) AND position > $1`, [afterPosition, limit, types], afterPosition, limit);
  }

  /**
   * The log read by position, up to the safe head of the same snapshot, so a position read past is
   * never one that commits later. When that bound is below a write this handle has acknowledged (an
   * older transaction of another writer still running), the read waits for it, a while at most: a
   * caller reads what it wrote.
   */
  private async readBounded(where: string, values: unknown[], after: number, limit: number): Promise<StoredEvent[]> {
    const text = `WITH b AS MATERIALIZED (SELECT ${safeHead(this.s)} AS bound)
      SELECT b.bound, e.position, e.stream, e.version, e.id, e.type, e.data, e.time, e.schema_version FROM b
      LEFT JOIN LATERAL (SELECT * FROM ${this.s}.events WHERE ${where} AND position <= b.bound ORDER BY position LIMIT $2) AS e ON true
      ORDER BY e.position`;
    const until = performance.now() + OWN_WRITES_WAIT_MS;
    for (let wait = 1; ; wait = Math.min(wait * 2, 20)) {
      const res = await this.query(text, values);
      const rows = res.rows[0].position === null ? [] : res.rows;
      if (rows.length >= limit || this.ownHigh <= after || (await this.answerNow(Number(res.rows[0].bound), until))) return rows.map(toEvent);
      await sleep(wait);
    }
  }

  /** The safe head (schema.ts): no position at or below it commits later. */
  async head(): Promise<number> {
    const until = performance.now() + OWN_WRITES_WAIT_MS;
    for (let wait = 1; ; wait = Math.min(wait * 2, 20)) {
      const head = await this.safeHeadNow();
      if (await this.answerNow(head, until)) return head;
      await sleep(wait);
    }
  }

  /**
   * Whether a read bounded at `bound` is answered now rather than waited on. Once a wait has run out
   * (a transaction left open somewhere holds the safe head back), reads stop waiting until one sees the
   * head reach this handle's writes again, so such a transaction costs the handle one wait, not one a read.
   */
  private async answerNow(bound: number, until: number): Promise<boolean> {
    if (bound >= this.ownHigh) {
      this.heldBack = false;
      return true;
    }
    if (this.heldBack) return true;
    if (performance.now() > until) {
      this.heldBack = true;
      return true;
    }
    return this.clearedSince();
  }

  /** Another handle emptied the log since this one wrote: its own writes are gone, nothing to wait for. */
  private async clearedSince(): Promise<boolean> {
    const res = await this.query(`SELECT coalesce(max(position), 0) AS top FROM ${this.s}.events`);
    if (Number(res.rows[0].top) >= this.ownHigh) return false;
    this.ownHigh = 0;
    return true;
  }

  private async safeHeadNow(): Promise<number> {
    const res = await this.query(`SELECT ${safeHead(this.s)} AS head`);
    return Number(res.rows[0].head);
  }

  async readSnapshot(stream: string, kind: string): Promise<Snapshot | undefined> {
    const res = await this.query(`SELECT version, state FROM ${this.s}.snapshots WHERE stream = $1 AND kind = $2`, [stream, kind]);
    if (res.rows.length === 0) return undefined;
    return { stream, kind, version: res.rows[0].version, state: deserialize(res.rows[0].state) };
  }

  async writeSnapshot(snapshot: Snapshot): Promise<void> {
    await this.query(
      `INSERT INTO ${this.s}.snapshots (stream, kind, version, state) VALUES ($1, $2, $3, $4)
       ON CONFLICT (stream, kind) DO UPDATE SET version = excluded.version, state = excluded.state
       WHERE excluded.version >= ${this.s}.snapshots.version`,
      [snapshot.stream, snapshot.kind, snapshot.version, serialize(snapshot.state)],
    );
  }

  /**
   * Without any append lock: the statement keeps each stream's last event as its snapshot sees it, and
   * an append meanwhile only adds later versions and positions. It keeps the event at the safe head too,
   * which would otherwise fall back below what readers have read (and look like a cleared log).
   */
  async dropTypes(types: readonly string[], throughPosition: number, streamPrefix: string): Promise<number> {
    const res = await this.query(
      `DELETE FROM ${this.s}.events AS e WHERE e.type = ANY($1) AND e.position <= $2 AND left(e.stream, length($3)) = $3
         AND e.version < (SELECT max(last.version) FROM ${this.s}.events AS last WHERE last.stream = e.stream)
         AND e.position < (SELECT ${safeHead(this.s)})`,
      [[...new Set(types)], throughPosition, streamPrefix],
    );
    return res.rowCount ?? 0;
  }

  async clear(): Promise<void> {
    const client = await this.connect();
    try {
      await client.query('BEGIN');
      await client.query(`SELECT pg_advisory_xact_lock(hashtext($1))`, [`${this.s}.events`]);
      // The table's lock waits for every append in flight (each has read the table before taking positions).
      await client.query(`TRUNCATE ${this.s}.events, ${this.s}.snapshots, ${this.s}.live_hosts, ${this.s}.live_host_accounts`);
      await client.query(`ALTER SEQUENCE ${this.s}.event_positions RESTART WITH 1`);
      await client.query('SELECT pg_notify($1, $2)', [this.channel, 'clear']);
      await client.query('COMMIT');
      this.ownHigh = this.announced = this.safeTold = 0;
      this.commits.notify();
    } catch (error) {
      await client.query('ROLLBACK').catch(() => {});
      throw this.explain(error, 'clear failed');
    } finally {
      client.release();
    }
  }

  /** Drops this store's schema and everything in it (test suites clean up with it). */
  async drop(): Promise<void> {
    await this.query(`DROP SCHEMA IF EXISTS ${this.s} CASCADE`);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.foreign.stop();
    this.listenWanted = false;
    const listener = this.listener;
    this.listener = undefined;
    await listener?.end().catch(() => {});
    while (this.flushing || this.queue.length > 0) {
      if (!this.flushing) await this.flush();
      else await new Promise((r) => setImmediate(r));
    }
    await this.pool.end();
  }

  private async connect(): Promise<pg.PoolClient> {
    try {
      return await this.pool.connect();
    } catch (error) {
      throw this.explain(error, 'cannot connect');
    }
  }

  private async query(text: string, values?: unknown[]): Promise<pg.QueryResult> {
    if (this.closed) throw new StoreUnavailable(`${this.where}: the store is closed`);
    try {
      return await this.pool.query(text, values);
    } catch (error) {
      throw this.explain(error, 'query failed');
    }
  }

  private explain(error: unknown, what: string, write = false): Error {
    if (error instanceof StoreUnavailable || error instanceof VersionConflict) return error;
    const message = (error as Error)?.message ?? String(error);
    if (isConnectionError(error)) {
      const outcome = write ? '; the write may or may not have been committed' : '';
      return new StoreUnavailable(`${this.where} is unreachable: ${what} (${message})${outcome}`, { cause: error });
    }
    return new Error(`${this.where}: ${what} (${message})`, { cause: error });
  }
}

function isConnectionError(error: unknown): boolean {
  const e = error as { code?: string; message?: string } | undefined;
  if (!e) return false;
  if (e.code && (CONNECTION_CODES.has(e.code) || e.code.startsWith('08'))) return true;
  return /Connection terminated|connection timeout|timeout exceeded when trying to connect|Client has encountered a connection error|Connection ended/i.test(e.message ?? '');
}

function toEvent(r: { position: string; stream: string; version: number; id: string; type: string; data: string; time: string; schema_version: number }): StoredEvent {
  return { position: Number(r.position), stream: r.stream, version: r.version, id: r.id, type: r.type, data: JSON.parse(r.data), time: Number(r.time), schemaVersion: r.schema_version };
}

function quoteIdent(name: string): string {
  if (!/^[A-Za-z_][A-Za-z0-9_]{0,62}$/.test(name)) throw new Error(`invalid PostgreSQL schema name ${JSON.stringify(name)}`);
  return `"${name}"`;
}

/** Connects to the PostgreSQL store at `url` (`postgres://user:pass@host:port/db[?schema=name]`), creating its tables. */
export async function connectPostgresStore(url: string, options?: PostgresStoreOptions): Promise<EventStore> {
  return PostgresEventStore.connect(url, options);
}
