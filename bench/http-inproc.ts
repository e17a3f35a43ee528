/**
 * The HTTP face's own cost without sockets: `POST /v1.5/validate` through the wire handler (decode,
 * route, engine, encode, access log) called in process, beside `engine.call` alone. CPU microseconds
 * per call, for comparing changes to the request path on a machine whose other load makes socket
 * benchmarks noisy.
 *
 *   node --conditions=@sdp/source --import tsx bench/http-inproc.ts [calls] [rounds]
 *
 * Prints each variant's median over the rounds (the first left out as warm-up), and the access log's
 * cost as the median of its per-round difference to the log-off variant run just before it: on a shared
 * machine a paired difference holds still where the figures themselves move by microseconds.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEngine } from '@sdp/core';
import { openStore } from '../packages/server/src/open-store.ts';
import { SystemClock, randomIds } from '@sdp/clock';
import { createApiHandler, type WireRequest } from '@sdp/http';
import { openAccessLog } from '../packages/server/src/access-log.ts';

const CALLS = Number(process.argv[2] ?? 200_000);
const ROUNDS = Number(process.argv[3] ?? 3);
const BODY = new TextEncoder().encode(JSON.stringify({ csdl: 'interaction.content contains "hello"' }));
const HEADERS: Record<string, string> = { authorization: 'bench0:bench-key-0', 'content-type': 'application/json', 'content-length': String(BODY.length) };

const request: WireRequest = {
  method: 'POST',
  url: '/v1.5/validate',
  header: (name) => HEADERS[name],
  readBody: () => Promise.resolve(BODY),
};

const dir = mkdtempSync(join(tmpdir(), 'sdp-inproc-'));
try {
  const engine = createEngine({ store: (await openStore('memory:')).store, clock: new SystemClock(), ids: randomIds() });
  await engine.openAccount({ username: 'bench0', api_key: 'bench-key-0', package: { credits_per_hour: 1e12, analyze_credits_per_hour: 1e12 } });
  const log = openAccessLog(join(dir, 'access.log'))!;
  const variants: [string, () => unknown][] = [];
  // As `sdp serve` hands it the engine: its answer as a value where the call waited on nothing.
  const answerer = { call: engine.answer.bind(engine) };
  const bare = createApiHandler(answerer, {});
  const logged = createApiHandler(answerer, { onAccess: (e) => log.write(e) });
  const call = { version: '1.5' as const, endpoint: 'core.validate' as const, credentials: { username: 'bench0', apiKey: 'bench-key-0' }, params: { csdl: 'interaction.content contains "hello"' }, mediaType: 'application/json' };
  variants.push(['engine.answer alone', () => engine.answer({ ...call })]);
  variants.push(['wire handler, log off', () => bare(request)]);
  variants.push(['wire handler, log on', () => logged(request)]);
  const perCall = new Map<string, number[]>(variants.map(([name]) => [name, []]));
  for (let round = 0; round < ROUNDS; round++) {
    for (const [name, fn] of variants) {
      // 50 in flight, as the socket benchmark's connections.
      const run = async (n: number) => {
        let done = 0;
        const lane = async () => {
          while (done < n) {
            done++;
            await fn();
          }
        };
        await Promise.all(Array.from({ length: 50 }, lane));
      };
      await run(CALLS / 10);
      const before = process.cpuUsage();
      await run(CALLS);
      const used = process.cpuUsage(before);
      if (round > 0 || ROUNDS === 1) perCall.get(name)!.push((used.user + used.system) / CALLS);
    }
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  for (const [name, xs] of perCall) console.log(`${name.padEnd(24)} ${median(xs).toFixed(2)} µs CPU per call`);
  const on = perCall.get('wire handler, log on')!;
  const off = perCall.get('wire handler, log off')!;
  console.log(`the access log: ${median(on.map((x, i) => x - off[i]!)).toFixed(2)} µs CPU per call (median of ${on.length} paired rounds)`);
  await log.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
