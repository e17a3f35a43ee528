/**
 * The SQLite store's own CPU per charged call, without the disk's wait: appends shaped as the engine's
 * (the account stream as a read guard, one event on the credits stream), `GROUP` of them per turn of the
 * event loop, the log's sync answered at once. Prints CPU µs per append (the event loop's whole cost).
 *
 *   node --conditions=@sdp/source --import tsx bench/sqlite-append-cpu.ts [accounts] [group] [seconds]
 *
 * Not a `*.bench.ts`: a diagnostic for the store's hot path (issue 16), beside bench/sqlite-counters.ts.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteEventStore } from '@sdp/store-sqlite';

const [accountsText = '1', groupText = '20', secondsText = '3'] = process.argv.slice(2);
const accounts = Number(accountsText);
const group = Number(groupText);
const T = Date.parse('2026-03-01T10:00:00Z');
const data = { at: T, endpoint: 'core.validate', lines: [{ key: 'general', limit: 1e12, cost: 1 }] };

const dir = mkdtempSync(join(tmpdir(), 'sdp-sqlite-append-cpu-'));
try {
  const store = new SqliteEventStore(join(dir, 'store.db'), { syncLog: (_fd, done) => done(null) });
  const accountVersion = new Map<number, number>();
  for (let a = 0; a < accounts; a++) {
    await store.append([{ stream: `account:bench${a}`, expectedVersion: 0, events: [{ id: `open-${a}`, type: 'AccountOpened', data: { username: `bench${a}` }, time: T }] }]);
    accountVersion.set(a, 1);
  }
  const credits = new Array<number>(accounts).fill(0);
  let seq = 0;
  const round = () => {
    const writes: Promise<unknown>[] = [];
    for (let i = 0; i < group; i++) {
      const a = (seq + i) % accounts;
      writes.push(
        store.append([
          { stream: `account:bench${a}`, expectedVersion: 1, events: [] },
          { stream: `credits:bench${a}`, expectedVersion: credits[a]!++, events: [{ id: (++seq).toString(16).padStart(32, '0'), type: 'CreditsCharged', data, time: T }] },
        ]),
      );
    }
    return Promise.all(writes);
  };
  for (let i = 0; i < 200; i++) await round();
  const cpu = process.cpuUsage();
  const start = performance.now();
  let appends = 0;
  while (performance.now() - start < Number(secondsText) * 1000) {
    await round();
    appends += group;
  }
  const used = process.cpuUsage(cpu);
  console.log(`${accounts} account(s), ${group} appends a group: ${((used.user + used.system) / appends).toFixed(2)} CPU µs per append (${Math.round((appends * 1000) / (performance.now() - start))} appends/s)`);
  await store.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
