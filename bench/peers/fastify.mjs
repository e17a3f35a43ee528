// What a user would pick for "an API with a limit": fastify with @fastify/rate-limit keyed by credentials,
// answering the headers the project's answer carries (version, CORS, a random request id, the rate figures).
import Fastify from 'fastify';
import rateLimit from '@fastify/rate-limit';
import { apiHeaders } from './request-id.mjs';

const app = Fastify({ logger: false });
await app.register(rateLimit, { max: 1e12, timeWindow: '1 hour', keyGenerator: (req) => String(req.headers.authorization ?? req.ip) });
app.post('/v1.5/validate', async (req, reply) => {
  if (typeof req.body?.csdl !== 'string') return reply.code(400).send({ error: 'csdl' });
  reply.headers(apiHeaders()).header('X-RateLimit-Cost', '1').header('X-RateLimit-Reset-Ttl', '3600');
  return { created_at: '2026-03-02 08:05:37', dpu: '0.1' };
});
const address = await app.listen({ port: 0, host: '127.0.0.1' });
console.log('listening on ' + address);
