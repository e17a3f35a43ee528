// The baseline: node:http alone, parsing the JSON body and answering with what the project's answer carries:
// its headers (version, CORS, a random request id, the five rate headers) and a body made per request.
import { createServer } from 'node:http';
import { requestId } from './request-id.mjs';

let remaining = 1e12;
const server = createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const params = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
    if (typeof params.csdl !== 'string') {
      res.writeHead(400).end();
      return;
    }
    remaining -= 1;
    const body = JSON.stringify({ created_at: '2026-03-02 08:05:37', dpu: '0.1' });
    res.writeHead(200, {
      'X-API-Version': '1.5',
      'Access-Control-Allow-Origin': '*',
      'X-DataSift-Request-Id': requestId(),
      'Content-Type': 'application/json; charset=utf-8',
      'Content-Length': Buffer.byteLength(body),
      'X-RateLimit-Limit': '1000000000000',
      'X-RateLimit-Remaining': String(remaining),
      'X-RateLimit-Cost': '1',
      'X-RateLimit-Reset': String(Math.ceil(Date.now() / 3.6e6) * 3600),
      'X-RateLimit-Reset-Ttl': '3600',
    });
    res.end(body);
  });
});
server.listen(0, '127.0.0.1', () => console.log('listening on http://127.0.0.1:' + server.address().port));
