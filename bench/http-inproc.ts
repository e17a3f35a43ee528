/**
 * The HTTP face's own cost without sockets: `POST /v1.5/validate` through the wire handler (decode,
 * route, engine, encode, access log) called in process, beside `engine.call` alone. CPU microseconds
 * per call, for comparing changes to the request path on a machine whose other load makes socket
 * benchmarks noisy.
 *
 *   node --conditions=@sdp/source --import tsx bench/http-inproc.ts [calls]
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
  const variants: [string, () => Promise<unknown>][] = [];
  const bare = createApiHandler(engine, {});
  const logged = createApiHandler(engine, { onAccess: (e) => log.write(e) });
  const call = { version: '1.5' as const, endpoint: 'core.validate' as const, credentials: { username: 'bench0', apiKey: 'bench-key-0' }, params: { csdl: 'interaction.content contains "hello"' }, mediaType: 'application/json' };
  variants.push(['engine.call alone', () => engine.call({ ...call })]);
  variants.push(['wire handler, log off', () => bare(request)]);
  variants.push(['wire handler, log on', () => logged(request)]);
  for (let round = 0; round < 3; round++) {
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
      if (round === 2 || process.env.ALL_ROUNDS) console.log(`${name.padEnd(24)} ${((used.user + used.system) / CALLS).toFixed(2)} µs CPU per call`);
    }
  }
  await log.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
