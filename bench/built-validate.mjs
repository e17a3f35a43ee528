// What bench/heap-sample.mjs and bench/inproc-build.mjs share: a built checkout's packages, an engine on
// the memory store with one unlimited account, a `POST /v1.5/validate` as the wire handler receives it,
// and a driver keeping 50 calls in flight.
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

/** The built packages of the checkout at `buildRoot` (`.`, or a ratchet checkout). */
export async function loadBuild(buildRoot) {
  const at = (pkg, file = 'index.js') => pathToFileURL(resolve(buildRoot, 'packages', pkg, 'dist', file)).href;
  const core = await import(at('core'));
  // The store moved to the core's kernel entry after some builds: found where each build has it.
  const kernel = core.MemoryEventStore ? core : await import(at('core', 'kernel/index.js'));
  return { at, core, kernel, clock: await import(at('clock')), http: await import(at('http')) };
}

/** An engine on the memory store (system clock) with the account `bench0`, whose allowances never bind. */
export async function benchEngine({ core, kernel, clock }, ids) {
  const engine = core.createEngine({ store: new kernel.MemoryEventStore({ compactable: core.forgettableCharge }), clock: new clock.SystemClock(), ids });
  await engine.openAccount({ username: 'bench0', api_key: 'bench-key-0', package: { credits_per_hour: 1e12, analyze_credits_per_hour: 1e12 } });
  return engine;
}

/**
 * What the wire handler is given, as `sdp serve` gives it: the engine's `answer` (a value when the call
 * waited on nothing) where the build has one, else the engine itself (`call`, a promise).
 */
export function answererOf(engine) {
  return typeof engine.answer === 'function' ? { call: (call, endpoint) => engine.answer(call, endpoint) } : engine;
}

/** The validate call, as `engine.call` takes it and as the wire handler reads it. */
export function validateCall() {
  const call = { version: '1.5', endpoint: 'core.validate', credentials: { username: 'bench0', apiKey: 'bench-key-0' }, params: { csdl: 'interaction.content contains "hello"' }, mediaType: 'application/json' };
  const body = new TextEncoder().encode(JSON.stringify(call.params));
  const headers = { authorization: 'bench0:bench-key-0', 'content-type': 'application/json', 'content-length': String(body.length) };
  const request = { method: 'POST', url: '/v1.5/validate', header: (name) => headers[name], readBody: () => Promise.resolve(body), body };
  return { call, request };
}

/** Runs `one` `n` times, 50 at once. */
export async function inFlight(n, one) {
  let done = 0;
  const lane = async () => {
    while (done < n) {
      done++;
      await one();
    }
  };
  await Promise.all(Array.from({ length: 50 }, lane));
}
