// CPU per `POST /v1.5/validate` through a build's wire handler, engine and access log, in process (no
// sockets), for comparing builds run by run:
//   node bench/inproc-build.mjs BUILD_ROOT [wire-log|wire]
// BUILD_ROOT is a checkout whose packages are built (the ratchet's under node_modules/.cache/sdp/ratchet/,
// or `.`). Memory store, system clock, random ids, 50 calls in flight on one account, as
// bench/http-inproc.ts runs the working tree's sources. Prints µs of CPU a call.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const [buildRoot = '.', mode = 'wire-log'] = process.argv.slice(2);
const at = (pkg, file = 'index.js') => pathToFileURL(resolve(buildRoot, 'packages', pkg, 'dist', file)).href;
const core = await import(at('core'));
// The store moved to the core's kernel entry after some builds: found where each build has it.
const kernel = core.MemoryEventStore ? core : await import(at('core', 'kernel/index.js'));
const { SystemClock, randomIds } = await import(at('clock'));
const http = await import(at('http'));
const { openAccessLog } = await import(at('server', 'access-log.js'));

const dir = mkdtempSync(join(tmpdir(), 'sdp-inproc-build-'));
try {
  const log = openAccessLog(join(dir, 'access.log'));
  const engine = core.createEngine({ store: new kernel.MemoryEventStore({ compactable: core.forgettableCharge }), clock: new SystemClock(), ids: randomIds() });
  await engine.openAccount({ username: 'bench0', api_key: 'bench-key-0', package: { credits_per_hour: 1e12, analyze_credits_per_hour: 1e12 } });
  const body = new TextEncoder().encode(JSON.stringify({ csdl: 'interaction.content contains "hello"' }));
  const headers = { authorization: 'bench0:bench-key-0', 'content-type': 'application/json', 'content-length': String(body.length) };
  const request = { method: 'POST', url: '/v1.5/validate', header: (name) => headers[name], readBody: () => Promise.resolve(body), body };
  const handler = http.createApiHandler(engine, mode === 'wire-log' ? { onAccess: (e) => log.write(e) } : {});
  const run = async (n) => {
    let done = 0;
    const lane = async () => {
      while (done < n) {
        done++;
        const r = await handler(request);
        if (r.status !== 200) throw new Error(`status ${r.status}`);
      }
    };
    await Promise.all(Array.from({ length: 50 }, lane));
  };
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
