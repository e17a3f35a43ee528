/**
 * Bytes the young generation takes per `POST /v1.5/validate` through the wire handler in process (memory
 * store, access log to a file; `IDS=seeded`: the kernel's seeded ids for the clock's random ones), read from V8's own GC trace: run it under `--trace-gc-nvp` and this sums
 * the trace's `allocated` over the measured calls. Fewer bytes a call, fewer scavenges.
 *
 *   node --trace-gc-nvp --conditions=@sdp/source --import tsx bench/alloc-probe.ts [calls] [wire|engine] | node bench/alloc-sum.mjs
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEngine } from '@sdp/core';
import { seededIds } from '@sdp/core/kernel';
import { SystemClock, randomIds } from '@sdp/clock';
import { createApiHandler, type WireRequest } from '@sdp/http';
import { openStore } from '../packages/server/src/open-store.ts';
import { openAccessLog } from '../packages/server/src/access-log.ts';

const CALLS = Number(process.argv[2] ?? 200_000);
/** `wire` (the default), or `engine`: engine.call alone. */
const MODE = process.argv[3] ?? 'wire';
const BODY = new TextEncoder().encode(JSON.stringify({ csdl: 'interaction.content contains "hello"' }));
const HEADERS: Record<string, string> = { authorization: 'bench0:bench-key-0', 'content-type': 'application/json', 'content-length': String(BODY.length) };
const request: WireRequest = { method: 'POST', url: '/v1.5/validate', header: (name) => HEADERS[name], readBody: () => Promise.resolve(BODY) };

const dir = mkdtempSync(join(tmpdir(), 'sdp-alloc-'));
try {
  const engine = createEngine({ store: (await openStore('memory:')).store, clock: new SystemClock(), ids: process.env.IDS === 'seeded' ? seededIds(1) : randomIds() });
  await engine.openAccount({ username: 'bench0', api_key: 'bench-key-0', package: { credits_per_hour: 1e12, analyze_credits_per_hour: 1e12 } });
  const log = openAccessLog(join(dir, 'access.log'))!;
  const handler = createApiHandler({ call: (c, e) => engine.answer(c, e) }, { onAccess: (e) => log.write(e) });
  const call = { version: '1.5' as const, endpoint: 'core.validate' as const, credentials: { username: 'bench0', apiKey: 'bench-key-0' }, params: { csdl: 'interaction.content contains "hello"' }, mediaType: 'application/json' };
  const run = async (n: number) => {
    let done = 0;
    const lane = async () => {
      while (done < n) {
        done++;
        await (MODE === 'engine' ? engine.answer({ ...call }) : handler(request));
      }
    };
    await Promise.all(Array.from({ length: 50 }, lane));
  };
  await run(CALLS / 4);
  console.log('=== measured');
  const before = process.cpuUsage();
  await run(CALLS);
  const used = process.cpuUsage(before);
  console.log(`=== end ${CALLS} ${((used.user + used.system) / CALLS).toFixed(2)}`);
  await log.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
