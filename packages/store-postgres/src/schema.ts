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
];

export const SCHEMA_VERSION = MIGRATIONS.length;

/**
 * The append function: conflicts are results, not errors. It takes, per entry, the id of the event the
 * writer expects its stream to end with (or NULL): a pipelined writer decided on its own pending write,
 * and another process's write of the same version must fail it. The nine-argument form of earlier builds
 * stays in databases they prepared, for their processes still running during an upgrade.
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
  out     bigint[] := array_fill(0::bigint, ARRAY[n_ent + n_req]);
  head    bigint;
  cur     integer;
  first_e integer := 1;   -- first entry of the current request
  first_v integer := 1;   -- first event of the current request
  e integer; r integer; k integer; failed integer;
BEGIN
  -- Appends are serialized: positions are handed out under this lock and committed in that order, so a
  -- reader never sees position p+1 before p.
  PERFORM pg_advisory_xact_lock(hashtext('${s}.events'));
  SELECT coalesce(max(position), 0) INTO head FROM ${s}.events;
  FOR r IN 1..n_req LOOP
    failed := 0;
    FOR e IN first_e .. first_e + req_entries[r] - 1 LOOP
      SELECT coalesce(max(version), 0) INTO cur FROM ${s}.events WHERE stream = ent_stream[e];
      out[e] := cur;
      IF failed = 0 AND ent_expect[e] <> -1 AND ent_expect[e] <> cur THEN failed := e; END IF;
      IF failed = 0 AND ent_last[e] IS NOT NULL AND cur > 0 AND
         (SELECT id FROM ${s}.events WHERE stream = ent_stream[e] AND version = cur) IS DISTINCT FROM ent_last[e] THEN
        failed := e;
      END IF;
    END LOOP;
    IF failed > 0 THEN
      out[n_ent + r] := -failed;
      FOR e IN first_e .. first_e + req_entries[r] - 1 LOOP first_v := first_v + ent_events[e]; END LOOP;
    ELSE
      FOR e IN first_e .. first_e + req_entries[r] - 1 LOOP
        k := ent_events[e];
        IF k > 0 THEN
          INSERT INTO ${s}.events (position, stream, version, id, type, data, time, schema_version)
          SELECT head + t.o, ent_stream[e], out[e] + t.o, t.id, t.type, t.data, t.time, t.schema_version
          FROM unnest(ev_id[first_v : first_v + k - 1], ev_type[first_v : first_v + k - 1],
                      ev_data[first_v : first_v + k - 1], ev_time[first_v : first_v + k - 1],
                      ev_schema[first_v : first_v + k - 1])
               WITH ORDINALITY AS t(id, type, data, time, schema_version, o);
          head := head + k;
          out[e] := out[e] + k;
          first_v := first_v + k;
        END IF;
      END LOOP;
      out[n_ent + r] := head;
    END IF;
    first_e := first_e + req_entries[r];
  END LOOP;
  RETURN out;
END
$fn$;`;
