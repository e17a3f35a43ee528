/**
 * The SQLite store's own cost per charged call: appends shaped as the engine's (the account stream as a
 * read guard, one event on the credits stream) from `clients` callers, each appending again as soon as
 * its last append is acknowledged (as 50 connections do), on a real file with real syncs. Prints CPU µs
 * per append (user and system: the syncs' kernel work counts), appends a second, and appends per commit.
 *
 *   node --conditions=@sdp/source --import tsx bench/sqlite-append-cpu.ts [accounts] [clients] [seconds]
 *
 * Not a `*.bench.ts`: a diagnostic for the store's hot path (issue 16), beside bench/sqlite-counters.ts.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ANY_VERSION } from '@sdp/core/kernel';
import { SqliteEventStore } from '@sdp/store-sqlite';

const [accountsText = '1', clientsText = '50', secondsText = '4'] = process.argv.slice(2);
const accounts = Number(accountsText);
const clients = Number(clientsText);
const T = Date.parse('2026-03-01T10:00:00Z');
const data = { at: T, endpoint: 'core.validate', lines: [{ key: 'general', limit: 1e12, cost: 1 }] };

const dir = mkdtempSync(join(tmpdir(), 'sdp-sqlite-append-cpu-'));
try {
  const store = new SqliteEventStore(join(dir, 'store.db'));
  for (let a = 0; a < accounts; a++) {
    await store.append([{ stream: `account:bench${a}`, expectedVersion: 0, events: [{ id: `open-${a}`, type: 'AccountOpened', data: { username: `bench${a}` }, time: T }] }]);
  }
  let seq = 0;
  let appends = 0;
  let deadline = performance.now() + 1000;
  const client = async (c: number) => {
    const a = c % accounts;
    while (performance.now() < deadline) {
      await store.append([
        { stream: `account:bench${a}`, expectedVersion: 1, events: [] },
        { stream: `credits:bench${a}`, expectedVersion: ANY_VERSION, events: [{ id: (++seq).toString(16).padStart(32, '0'), type: 'CreditsCharged', data, time: T }] },
      ]);
      appends++;
    }
  };
  await Promise.all(Array.from({ length: clients }, (_, c) => client(c)));
  appends = 0;
  const before = { ...store.stats };
  const cpu = process.cpuUsage();
  const start = performance.now();
  deadline = start + Number(secondsText) * 1000;
  await Promise.all(Array.from({ length: clients }, (_, c) => client(c)));
  const used = process.cpuUsage(cpu);
  const seconds = (performance.now() - start) / 1000;
  const commits = store.stats.commits - before.commits;
  console.log(
    `${accounts} account(s), ${clients} clients: ${((used.user + used.system) / appends).toFixed(2)} CPU µs per append (system ${(used.system / appends).toFixed(2)}), ` +
      `${Math.round(appends / seconds)} appends/s, ${(appends / commits).toFixed(1)} appends per commit, ${((store.stats.syncs - before.syncs) / seconds).toFixed(0)} syncs/s`,
  );
  await store.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
