/**
 * One process of `contention.ts`: an engine over the shared store (as one `sdp serve --workers` process
 * runs it), `CONCURRENCY` calls in flight at once for `SECONDS` after the parent says go, spread over
 * `ACCOUNTS` accounts; prints its answers by status and its attempt loop's counts as JSON.
 */
import { createEngine } from '@sdp/core';
import { chooseWritePolicy, WRITE_POLICIES } from '@sdp/core/kernel';
import { SystemClock, randomIds } from '@sdp/clock';
import { SqliteEventStore } from '@sdp/store-sqlite';
import { connectPostgresStore } from '@sdp/store-postgres';

const [store, accountsArg, concurrencyArg, secondsArg, soleArg, ownsArg] = process.argv.slice(2);
// `k/P`: this process owns the accounts n with n mod P = k (as --workers routes them); `all`: every account.
const [index, of] = ownsArg && ownsArg !== 'all' ? ownsArg.split('/').map(Number) : [0, 1];
const owned = Array.from({ length: Number(accountsArg) }, (_, n) => n).filter((n) => n % of! === index);
const accounts = owned.length;
const concurrency = Number(concurrencyArg);
const seconds = Number(secondsArg);
const KEY = 'bench-key-00000000000000000000001';

const events = store!.startsWith('postgres') ? await connectPostgresStore(store!) : new SqliteEventStore(store!.replace(/^sqlite:/, ''));
// CONTENTION_PIPELINE=0: an experiment, the lane held until each write is durable over the shared store.
const policy = soleArg === 'sole' ? WRITE_POLICIES['sole-writer'] : process.env.CONTENTION_PIPELINE === '0' ? WRITE_POLICIES['shared-serial'] : chooseWritePolicy(events.capabilities, 'any');
const engine = createEngine({
  store: events,
  clock: new SystemClock(),
  ids: randomIds(),
  writePolicy: policy,
  wait: (ms) => new Promise((r) => setTimeout(r, ms)),
  yieldTurn: () => new Promise((r) => setImmediate(r)),
});
// Time this process's event loop spends blocked in BEGIN IMMEDIATE: SQLite's busy handler sleeps in the
// calling thread while another process holds the write lock (better-sqlite3 is synchronous).
let lockWaitMs = 0;
const sql = (events as unknown as { writer?: { sql: { begin: { run(): unknown } } } }).writer?.sql;
if (sql) {
  const begin = sql.begin;
  sql.begin = { run: () => { const t = performance.now(); try { return begin.run(); } finally { lockWaitMs += performance.now() - t; } } };
}
const statuses: Record<string, number> = {};
/** Each answered call's time from asked to answered (ms), for the percentiles. */
const latencies: number[] = [];
process.send!({ ready: true });
await new Promise<void>((go) => process.once('message', () => go()));
const until = performance.now() + seconds * 1000;
const elu0 = performance.eventLoopUtilization();
let next = process.pid;
async function loop(): Promise<void> {
  while (performance.now() < until) {
    const n = owned[next++ % accounts]!;
    const t = performance.now();
    const a = await engine.call({ version: '1.5', endpoint: 'core.validate', credentials: { username: `bench${n}`, apiKey: KEY }, params: { csdl: 'interaction.content contains "hello"' } });
    latencies.push(performance.now() - t);
    statuses[a.status] = (statuses[a.status] ?? 0) + 1;
  }
}
// A process that owns no account (one account routed over two processes) waits out the load idle.
await Promise.all(accounts === 0 ? [new Promise((r) => setTimeout(r, seconds * 1000))] : Array.from({ length: concurrency }, loop));
const report = { statuses, latencies, counts: engine.attemptCounts(), lockWaitMs, busy: performance.eventLoopUtilization(elu0).utilization };
// The latencies make a large message: disconnecting before it is written would drop it.
await new Promise<void>((sent) => process.send!(report, () => sent()));
await events.close();
process.disconnect();
