// Loaded with `node --import` ahead of `sdp serve` on a SQLite store (bench/sqlite-counters.ts): wraps the
// store's methods and the log sync to count where a request's time goes, and writes the counts to
// $SDP_COUNTERS_FILE as JSON when the process exits. SIGUSR2 starts the measured window (after warm-up).
import fs, { writeFileSync } from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { performance } from 'node:perf_hooks';

const now = () => performance.now();
const fresh = () => ({
  startedAt: now(),
  cpu: process.cpuUsage(),
  elu: performance.eventLoopUtilization(),
  flushes: 0,
  flushMs: 0,
  slowFlushes: 0,
  slowFlushMs: 0,
  requestsFlushed: 0,
  maxGroup: 0,
  syncs: 0,
  syncMs: 0,
  appends: 0,
  appendEvents: 0,
  appendStreams: 0,
  appendAckMs: 0,
  inFlightAtFlush: 0,
  reads: {},
  snapshotWrites: 0,
  checkpoints: 0,
  copyMs: 0,
});
let c = fresh();
let inFlight = 0;

const realFdatasync = fs.fdatasync;
fs.fdatasync = (fd, done) => {
  const t = now();
  realFdatasync(fd, (error) => {
    c.syncs++;
    c.syncMs += now() - t;
    done(error);
  });
};
syncBuiltinESMExports();

const { SqliteEventStore } = await import('@sdp/store-sqlite');
const proto = SqliteEventStore.prototype;

const flush = proto.flush;
proto.flush = function (...args) {
  const commits = this.stats.commits;
  const queued = this.queue.length;
  const t = now();
  try {
    return flush.apply(this, args);
  } finally {
    if (this.stats.commits > commits) {
      const group = queued - this.queue.length;
      const ms = now() - t;
      c.flushes++;
      c.flushMs += ms;
      if (ms > 1) {
        c.slowFlushes++;
        c.slowFlushMs += ms;
      }
      c.requestsFlushed += group;
      c.maxGroup = Math.max(c.maxGroup, group);
      c.inFlightAtFlush += inFlight;
    }
  }
};

const append = proto.append;
proto.append = function (batch) {
  const t = now();
  c.appends++;
  c.appendStreams += batch.length;
  for (const b of batch) c.appendEvents += b.events.length;
  inFlight++;
  const settle = () => {
    inFlight--;
    c.appendAckMs += now() - t;
  };
  const p = append.call(this, batch);
  p.then(settle, settle);
  return p;
};

for (const name of ['readStream', 'readAll', 'readTypes', 'head', 'readSnapshot']) {
  const read = proto[name];
  proto[name] = function (...args) {
    const t = now();
    const r = (c.reads[name] ??= { count: 0, ms: 0, rows: 0 });
    r.count++;
    const p = read.apply(this, args);
    p.then((v) => {
      r.ms += now() - t;
      if (Array.isArray(v)) r.rows += v.length;
    }, () => {});
    return p;
  };
}

// The store's own checkpoints, where the build has them.
const checkpoints = await import(new URL('../packages/store-sqlite/dist/log-checkpoint.js', import.meta.url).href).catch(() => undefined);
if (checkpoints) {
  const copy = checkpoints.LogCheckpoint.prototype.copy;
  checkpoints.LogCheckpoint.prototype.copy = function () {
    const t = now();
    try {
      return copy.call(this);
    } finally {
      c.checkpoints++;
      c.copyMs += now() - t;
    }
  };
}

const writeSnapshot = proto.writeSnapshot;
proto.writeSnapshot = function (snapshot) {
  c.snapshotWrites++;
  return writeSnapshot.call(this, snapshot);
};

process.on('SIGUSR2', () => {
  c = fresh();
});
process.on('exit', () => {
  const seconds = (now() - c.startedAt) / 1000;
  const elu = performance.eventLoopUtilization(c.elu);
  const per = (x, n) => (n > 0 ? +(x / n).toFixed(3) : 0);
  writeFileSync(
    process.env.SDP_COUNTERS_FILE,
    JSON.stringify({
      seconds: +seconds.toFixed(2),
      eventLoopUtilization: +elu.utilization.toFixed(3),
      cpuUserUsPerAppend: per(process.cpuUsage(c.cpu).user, c.appends),
      cpuSystemUsPerAppend: per(process.cpuUsage(c.cpu).system, c.appends),
      appends: c.appends,
      eventsPerAppend: per(c.appendEvents, c.appends),
      streamsPerAppend: per(c.appendStreams, c.appends),
      appendAckMsAvg: per(c.appendAckMs, c.appends),
      groupCommits: c.flushes,
      groupCommitsPerSecond: per(c.flushes, seconds),
      callsPerGroup: per(c.requestsFlushed, c.flushes),
      maxGroup: c.maxGroup,
      appendsInFlightAtFlush: per(c.inFlightAtFlush, c.flushes),
      flushMsAvg: per(c.flushMs, c.flushes),
      flushUsPerRequest: per(c.flushMs * 1000, c.requestsFlushed),
      flushesOver1ms: c.slowFlushes,
      flushesOver1msMsAvg: per(c.slowFlushMs, c.slowFlushes),
      syncs: c.syncs,
      syncMsAvg: per(c.syncMs, c.syncs),
      syncBusyShare: per(c.syncMs / 1000, seconds),
      reads: Object.fromEntries(Object.entries(c.reads).map(([k, r]) => [k, { count: r.count, perSecond: per(r.count, seconds), msAvg: per(r.ms, r.count), rowsAvg: per(r.rows, r.count) }])),
      snapshotWrites: c.snapshotWrites,
      checkpoints: c.checkpoints,
      checkpointCopyMsAvg: per(c.copyMs, c.checkpoints),
    }, null, 2),
  );
});
