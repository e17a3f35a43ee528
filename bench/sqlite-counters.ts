/**
 * What the SQLite store does under the http benchmark's load: `sdp serve` (built JavaScript) on a SQLite
 * file with bench/sqlite-counters-preload.mjs wrapping the store, loaded by autocannon (50 connections,
 * `POST /v1.5/validate`), then the counts of the measured window: group commits and the calls each
 * carried, log syncs and their time, reads that reached the store, the wait for a durable answer, and
 * the event loop's busy share.
 *
 *   node --conditions=@sdp/source --import tsx bench/sqlite-counters.ts [accounts] [seconds]
 *
 * Not a `*.bench.ts`: wrapped methods cost time, so its figures explain a throughput, they are not one.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SDP_SERVE_BUILT, autocannon, buildWorkspace, hasTaskset, root, startServerProcess, stopServerProcess } from './server-process.ts';

const [accountsText = '1', secondsText = '6'] = process.argv.slice(2);
const accounts = Number(accountsText);
const KEY = 'bench-key-00000000000000000000001';

if (hasTaskset) spawnSync('taskset', ['-a', '-cp', '1', String(process.pid)]);
const dir = mkdtempSync(join(tmpdir(), 'sdp-sqlite-counters-'));
try {
  const file = join(dir, 'accounts.json');
  const pkg = { credits_per_hour: 1e12, analyze_credits_per_hour: 1e12 };
  writeFileSync(file, JSON.stringify(Array.from({ length: accounts }, (_, i) => ({ username: `bench${i}`, api_key: `${KEY}${i}`, package: pkg }))));
  buildWorkspace();
  const counters = join(dir, 'counters.json');
  process.env.SDP_COUNTERS_FILE = counters;
  const args = ['--import', join(root, 'bench', 'sqlite-counters-preload.mjs'), ...SDP_SERVE_BUILT, '--store', `sqlite:${join(dir, 'store.db')}`, '--accounts', file, '--access-log', join(dir, 'access.log')];
  const server = await startServerProcess(process.execPath, args, 0);
  const load = (duration: number) => {
    let connection = 0;
    return autocannon({
      url: server.url + '/v1.5/validate',
      method: 'POST',
      body: JSON.stringify({ csdl: 'interaction.content contains "hello"' }),
      connections: 50,
      duration,
      setupClient: (client: { setHeaders(h: Record<string, string>): void }) => {
        const n = connection++ % accounts;
        client.setHeaders({ Authorization: `bench${n}:${KEY}${n}`, 'Content-Type': 'application/json' });
      },
    });
  };
  await load(2);
  server.child.kill('SIGUSR2');
  const result = await load(Number(secondsText));
  await stopServerProcess(server.child);
  console.log(`sqlite, ${accounts} account(s): ${Math.round(result.requests.average)} req/s, p99 ${result.latency.p99} ms, ${result.non2xx + result.errors} non-2xx or errors`);
  console.log(readFileSync(counters, 'utf8'));
} finally {
  rmSync(dir, { recursive: true, force: true });
}
