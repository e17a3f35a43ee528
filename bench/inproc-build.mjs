// CPU per `POST /v1.5/validate` through a build's wire handler, engine and access log, in process (no
// sockets), for comparing builds run by run:
//   node bench/inproc-build.mjs BUILD_ROOT [wire-log|wire]
// BUILD_ROOT is a checkout whose packages are built (the ratchet's under node_modules/.cache/sdp/ratchet/,
// or `.`). Memory store, system clock, random ids, 50 calls in flight on one account, as
// bench/http-inproc.ts runs the working tree's sources. Prints µs of CPU a call.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { answererOf, benchEngine, inFlight, loadBuild, validateCall } from './built-validate.mjs';

const [buildRoot = '.', mode = 'wire-log'] = process.argv.slice(2);
const build = await loadBuild(buildRoot);
const { openAccessLog } = await import(build.at('server', 'access-log.js'));

const dir = mkdtempSync(join(tmpdir(), 'sdp-inproc-build-'));
try {
  const log = openAccessLog(join(dir, 'access.log'));
  const engine = await benchEngine(build, build.clock.randomIds());
  const { request } = validateCall();
  const handler = build.http.createApiHandler(answererOf(engine), mode === 'wire-log' ? { onAccess: (e) => log.write(e) } : {});
  const run = (n) =>
    inFlight(n, async () => {
      const r = await handler(request);
      if (r.status !== 200) throw new Error(`status ${r.status}`);
    });
  await run(50_000);
  const calls = Number(process.env.INPROC_CALLS ?? 200_000);
  const before = process.cpuUsage();
  await run(calls);
  const used = process.cpuUsage(before);
  console.log(((used.user + used.system) / calls).toFixed(3));
  await log.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
