// hono on @hono/node-server: the fetch-centred framework, parsing the JSON body, the project's headers set by hand.
import { Hono } from 'hono';
import { serve } from '@hono/node-server';
import { requestId } from './request-id.mjs';

const app = new Hono();
let remaining = 1e12;
app.post('/v1.5/validate', async (c) => {
  const params = await c.req.json();
  if (typeof params.csdl !== 'string') return c.json({ error: 'csdl' }, 400);
  remaining -= 1;
  c.header('X-API-Version', '1.5');
  c.header('Access-Control-Allow-Origin', '*');
  c.header('X-DataSift-Request-Id', requestId());
  c.header('X-RateLimit-Limit', '1000000000000');
  c.header('X-RateLimit-Remaining', String(remaining));
  c.header('X-RateLimit-Cost', '1');
  c.header('X-RateLimit-Reset', String(Math.ceil(Date.now() / 3.6e6) * 3600));
  c.header('X-RateLimit-Reset-Ttl', '3600');
  return c.json({ created_at: '2026-03-02 08:05:37', dpu: '0.1' });
});
serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info) => console.log('listening on http://127.0.0.1:' + info.port));
