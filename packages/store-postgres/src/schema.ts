/**
 * The PostgreSQL schema, one step per version, recorded in `sdp_meta.schema_version`. Every table lives
 * in one PostgreSQL schema (`public` unless told otherwise), so several stores (and parallel test files)
 * can share a database.
 */
export const MIGRATIONS: readonly ((s: string) => string)[] = [
  (s) => `
    CREATE TABLE ${s}.events (
      position bigint  PRIMARY KEY,
      stream   text    NOT NULL,
      version  integer NOT NULL,
      id       text    NOT NULL,
      type     text    NOT NULL,
      data     text    NOT NULL,
      time     bigint  NOT NULL,
      UNIQUE (stream, version)
    );
    CREATE TABLE ${s}.snapshots (
      stream  text    NOT NULL,
      kind    text    NOT NULL,
      version integer NOT NULL,
      state   bytea   NOT NULL,
      PRIMARY KEY (stream, kind)
    );`,
  // 2: events by id, so an append whose connection died can be looked up once the server is back.
  (s) => `CREATE INDEX IF NOT EXISTS events_id ON ${s}.events (id);`,
  // 3: each event's schema version (of its type's data); every event written before it is at version 1.
  // The append function of version 2 (without it) stays: a process of the older build still running
  // during an upgrade appends through it, and its events are all at version 1, the column's default.
  (s) => `ALTER TABLE ${s}.events ADD COLUMN schema_version integer NOT NULL DEFAULT 1;`,
  // 4: events by type in global order, so a projection reads its types without the rest of the log.
  (s) => `CREATE INDEX IF NOT EXISTS events_type ON ${s}.events (type, position);`,
  // 5: the liveness of the processes sharing the database (HostLiveness), beside the log and never in it:
  // each host's last renewal (the database's clock, and the host's own) and the accounts it holds.
  (s) => `
    CREATE TABLE IF NOT EXISTS ${s}.live_hosts (
      host       text        PRIMARY KEY,
      renewed_at timestamptz NOT NULL,
      alive_at   bigint      NOT NULL
    );
    CREATE INDEX IF NOT EXISTS live_hosts_renewed ON ${s}.live_hosts (renewed_at);
    CREATE TABLE IF NOT EXISTS ${s}.live_host_accounts (
      host    text NOT NULL,
      account text NOT NULL,
      PRIMARY KEY (host, account)
    );`,
  // 6: appends of different streams no longer take turns on one lock (docs/stores.md, "Global order"):
  // positions come from a sequence, and each event records the transaction that wrote it, so a reader
  // can tell which positions are final. Events written before have none: they are all committed.
  (s) => `
    ALTER TABLE ${s}.events ADD COLUMN IF NOT EXISTS xid xid8;
    CREATE SEQUENCE IF NOT EXISTS ${s}.event_positions AS bigint;
    SELECT setval('${s}.event_positions', greatest(max(position), 1), max(position) IS NOT NULL) FROM ${s}.events;`,
];

export const SCHEMA_VERSION = MIGRATIONS.length;

/** The advisory lock key space of this schema's streams (the second key is the stream's hash). */
const streamKeys = (s: string): string => `hashtext('${s}.streams')`;
/** The advisory lock taken only while a transaction takes its block of positions. */
const positionsKey = (s: string): string => `hashtext('${s}.positions')`;

/**
 * The highest position below which every position is final: committed, or taken by a transaction that
 * ended without committing. A transaction takes its xid and its positions together under one short lock,
 * so positions follow xids; every transaction older than the snapshot's oldest running one has ended,
 * and the newest event such a transaction wrote bounds what a reader may read without skipping a
 * position that commits later. `xid IS NULL`: written before schema 6, when appends took turns.
 */
export const safeHead = (s: string): string =>
  `coalesce((SELECT position FROM ${s}.events WHERE xid IS NULL OR xid < (SELECT pg_snapshot_xmin(pg_current_snapshot())) ORDER BY position DESC LIMIT 1), 0)`;

/**
 * The append function: conflicts are results, not errors. It takes, per entry, the id of the event the
 * writer expects its stream to end with (or NULL): a pipelined writer decided on its own pending write,
 * and another process's write of the same version must fail it. The eight- and nine-argument forms of
 * earlier builds are redefined on top of it, so their processes still running during an upgrade append
 * through the same locks and positions.
 */
export const appendFunction = (s: string): string => `
CREATE OR REPLACE FUNCTION ${s}.sdp_append(
  req_entries integer[],   -- per request: how many stream entries it has
  ent_stream  text[],      -- per entry
  ent_expect  integer[],
  ent_last    text[],      -- per entry: the id expected at ent_expect, or NULL
  ent_events  integer[],   -- per entry: how many events
  ev_id       text[],      -- per event, entries' events one after another
  ev_type     text[],
  ev_data     text[],
  ev_time     bigint[],
  ev_schema   integer[]
) RETURNS bigint[] LANGUAGE plpgsql AS $fn$
DECLARE
  -- Out: one slot per entry (its version after the write, or its actual version on a conflict), then one
  -- slot per request (its last position, or minus the 1-based index of the entry that conflicted).
  n_req   integer := coalesce(array_length(req_entries, 1), 0);
  n_ent   integer := coalesce(array_length(ent_stream, 1), 0);
  n_ev    integer := coalesce(array_length(ev_id, 1), 0);
  out     bigint[] := array_fill(0::bigint, ARRAY[n_ent + n_req]);
  -- Per entry: the entry of the same stream earlier in the group (whose writes are this one's start),
  -- and the stream's version and last id in the log.
  prev    integer[];
  db_v    integer[];
  db_id   text[];
  -- Per entry: the stream's version and last event id once this entry is done.
  after_v integer[] := array_fill(0, ARRAY[n_ent]);
  after_i text[] := array_fill(NULL::text, ARRAY[n_ent]);
  first_v integer[] := array_fill(0, ARRAY[n_ent]);   -- per entry: its first event's index
  ok      boolean[] := array_fill(false, ARRAY[n_req]);
  -- Per event: its position (0: its request was refused), version and stream.
  e_pos   bigint[] := array_fill(0::bigint, ARRAY[n_ev]);
  e_ver   integer[] := array_fill(0, ARRAY[n_ev]);
  e_str   text[] := array_fill(NULL::text, ARRAY[n_ev]);
  total   integer := 0;
  head    bigint := 0;
  wrote   boolean;
  base    bigint;       -- the log's last position, for a request that writes nothing (read once, if any)
  cur     integer;
  cur_id  text;
  p       integer;
  fe      integer := 1;   -- first entry of the current request
  v       integer := 1;
  e integer; r integer; k integer; j integer; failed integer;
BEGIN
  IF n_ent = 0 THEN RETURN out; END IF;
  -- Positions follow xids only if this transaction's xid is taken with its positions (below).
  IF pg_current_xact_id_if_assigned() IS NOT NULL THEN
    RAISE EXCEPTION 'sdp_append must run in a transaction of its own';
  END IF;
  -- Appends of a stream take turns; those of different streams do not. A stream only read (a guard) is
  -- held shared, so guards of one stream do not wait on each other. One order for every group: no deadlock.
  PERFORM CASE WHEN w THEN pg_advisory_xact_lock(${streamKeys(s)}, h) ELSE pg_advisory_xact_lock_shared(${streamKeys(s)}, h) END
     FROM (SELECT hashtext(t.x) AS h, bool_or(t.n > 0) AS w FROM unnest(ent_stream, ent_events) AS t(x, n) GROUP BY 1 ORDER BY 1) AS l;
  -- Every stream's version and last id in one statement (read after its lock: what the last holder committed).
  SELECT array_agg(q.pr ORDER BY q.o), array_agg(q.v ORDER BY q.o), array_agg(q.i ORDER BY q.o) INTO prev, db_v, db_id
    FROM (SELECT u.o, lag(u.o) OVER (PARTITION BY u.x ORDER BY u.o) AS pr, coalesce(l.version, 0) AS v, l.id AS i
            FROM unnest(ent_stream) WITH ORDINALITY AS u(x, o)
            LEFT JOIN LATERAL (SELECT version, id FROM ${s}.events WHERE stream = u.x ORDER BY version DESC LIMIT 1) AS l ON true) AS q;

  -- Every request checked before any position is taken, so a refused request leaves no gap.
  FOR r IN 1..n_req LOOP
    failed := 0;
    FOR e IN fe .. fe + req_entries[r] - 1 LOOP
      first_v[e] := v;
      v := v + ent_events[e];
      p := prev[e];
      IF p IS NULL THEN
        cur := db_v[e];
        cur_id := db_id[e];
      ELSE
        cur := after_v[p];
        cur_id := after_i[p];
      END IF;
      out[e] := cur;
      after_v[e] := cur;
      after_i[e] := cur_id;
      IF failed = 0 AND ent_expect[e] <> -1 AND ent_expect[e] <> cur THEN failed := e; END IF;
      IF failed = 0 AND ent_last[e] IS NOT NULL AND cur > 0 AND cur_id IS DISTINCT FROM ent_last[e] THEN failed := e; END IF;
    END LOOP;
    IF failed > 0 THEN
      out[n_ent + r] := -failed;
    ELSE
      ok[r] := true;
      FOR e IN fe .. fe + req_entries[r] - 1 LOOP
        k := ent_events[e];
        IF k > 0 THEN
          total := total + k;
          after_v[e] := out[e] + k;
          after_i[e] := ev_id[first_v[e] + k - 1];
        END IF;
      END LOOP;
    END IF;
    fe := fe + req_entries[r];
  END LOOP;

  -- The xid and the block of positions are taken together under a lock held for just these statements
  -- (not to the commit), so positions follow xids: what a reader's safe head relies on. A session lock,
  -- released on every way out, since a failure here must not leave it to the connection.
  IF total > 0 THEN
    PERFORM pg_advisory_lock(${positionsKey(s)});
    BEGIN
      PERFORM pg_current_xact_id();
      head := nextval('${s}.event_positions') - 1;
      IF total > 1 THEN PERFORM setval('${s}.event_positions', head + total); END IF;
    EXCEPTION WHEN OTHERS THEN
      PERFORM pg_advisory_unlock(${positionsKey(s)});
      RAISE;
    END;
    PERFORM pg_advisory_unlock(${positionsKey(s)});
  END IF;

  fe := 1;
  FOR r IN 1..n_req LOOP
    IF ok[r] THEN
      wrote := false;
      FOR e IN fe .. fe + req_entries[r] - 1 LOOP
        k := ent_events[e];
        FOR j IN 1..k LOOP
          e_pos[first_v[e] + j - 1] := head + j;
          e_ver[first_v[e] + j - 1] := out[e] + j;
          e_str[first_v[e] + j - 1] := ent_stream[e];
        END LOOP;
        IF k > 0 THEN
          head := head + k;
          out[e] := out[e] + k;
          wrote := true;
        END IF;
      END LOOP;
      IF wrote THEN
        out[n_ent + r] := head;
      ELSE
        IF base IS NULL THEN SELECT coalesce(max(position), 0) INTO base FROM ${s}.events; END IF;
        out[n_ent + r] := greatest(base, head);
      END IF;
    END IF;
    fe := fe + req_entries[r];
  END LOOP;
  -- The group's events in one statement.
  IF total > 0 THEN
    INSERT INTO ${s}.events (position, stream, version, id, type, data, time, schema_version, xid)
    SELECT t.p, t.x, t.v, t.id, t.type, t.data, t.time, t.sv, pg_current_xact_id()
      FROM unnest(e_pos, e_str, e_ver, ev_id, ev_type, ev_data, ev_time, ev_schema) AS t(p, x, v, id, type, data, time, sv)
     WHERE t.p > 0;
  END IF;
  RETURN out;
END
$fn$;

CREATE OR REPLACE FUNCTION ${s}.sdp_append(
  req_entries integer[], ent_stream text[], ent_expect integer[], ent_events integer[],
  ev_id text[], ev_type text[], ev_data text[], ev_time bigint[], ev_schema integer[]
) RETURNS bigint[] LANGUAGE sql AS $fn$
  SELECT ${s}.sdp_append(req_entries, ent_stream, ent_expect, array_fill(NULL::text, ARRAY[coalesce(array_length(ent_stream, 1), 0)]),
                         ent_events, ev_id, ev_type, ev_data, ev_time, ev_schema)
$fn$;

CREATE OR REPLACE FUNCTION ${s}.sdp_append(
  req_entries integer[], ent_stream text[], ent_expect integer[], ent_events integer[],
  ev_id text[], ev_type text[], ev_data text[], ev_time bigint[]
) RETURNS bigint[] LANGUAGE sql AS $fn$
  SELECT ${s}.sdp_append(req_entries, ent_stream, ent_expect, ent_events, ev_id, ev_type, ev_data, ev_time,
                         array_fill(1, ARRAY[coalesce(array_length(ev_id, 1), 0)]))
$fn$;`;
