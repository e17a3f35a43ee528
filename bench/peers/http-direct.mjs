// A diagnostic, not a framework: the project's HTTP face (@sdp/http's listen and createApiHandler) over
// the same engine as engine-direct.mjs, without the server around it (no access log, no write log, no
// keepers). Beside engine-direct it is what @sdp/http costs; beside `sdp serve` what the server adds.
// Runs built code.
import { createEngine, forgettableCharge } from '@sdp/core';
import { MemoryEventStore } from '@sdp/core/kernel';
import { SystemClock, randomIds } from '@sdp/clock';
import { createApiHandler, listen } from '@sdp/http';

const engine = createEngine({ store: new MemoryEventStore({ compactable: forgettableCharge }), clock: new SystemClock(), ids: randomIds() });
await engine.openAccount({ username: 'bench0', api_key: 'bench-key-00000000000000000000001' + '0', package: { credits_per_hour: 1e12, analyze_credits_per_hour: 1e12 } });
const running = await listen(createApiHandler({ call: (call, endpoint) => engine.answer(call, endpoint) }), { port: 0 });
console.log('listening on ' + running.url);
