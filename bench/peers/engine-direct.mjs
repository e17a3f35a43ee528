// A diagnostic, not a framework: node:http calling the project's engine.call directly (no @sdp/http, no
// access log) with the same memory store and answer headers. The project's server minus this is what
// its HTTP face and log cost; this minus bare node:http is what engine.call costs. Runs built code.
import { createServer } from 'node:http';
import { createEngine, endpointById, forgettableCharge } from '@sdp/core';
import { MemoryEventStore } from '@sdp/core/kernel';
import { SystemClock, randomIds } from '@sdp/clock';

const [username, apiKey] = ['bench0', 'bench-key-00000000000000000000001' + '0'];
const engine = createEngine({ store: new MemoryEventStore({ compactable: forgettableCharge }), clock: new SystemClock(), ids: randomIds() });
await engine.openAccount({ username, api_key: apiKey, package: { credits_per_hour: 1e12, analyze_credits_per_hour: 1e12 } });
const validate = endpointById('core.validate');

const server = createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', async () => {
    const params = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
    const [user, key] = String(req.headers.authorization).split(':');
    const a = await engine.call({ version: '1.5', endpoint: 'core.validate', credentials: { username: user, apiKey: key }, params }, validate);
    const body = JSON.stringify(a.body);
    const rate = a.rate;
    res.writeHead(a.status, {
      'Content-Type': 'application/json; charset=utf-8',
      'Content-Length': Buffer.byteLength(body),
      'X-RateLimit-Limit': String(rate.limit),
      'X-RateLimit-Remaining': String(rate.remaining),
      'X-RateLimit-Cost': String(rate.cost),
      'X-RateLimit-Reset': String(rate.reset),
      'X-RateLimit-Reset-Ttl': String(rate.resetTtl),
    });
    res.end(body);
  });
});
server.listen(0, '127.0.0.1', () => console.log('listening on http://127.0.0.1:' + server.address().port));
