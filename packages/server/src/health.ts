import { errorResponse, segmentsOf, splitUrl, type WireHandler } from '@sdp/http';

/**
 * `GET /_health`: a load balancer's or supervisor's probe. Mounted beside `/docs` rather than in the
 * catalogue: it is no endpoint of the platform's API, so it takes no credentials, charges nothing, has
 * no version and stays out of the OpenAPI documents. An answer says only that the process serves HTTP;
 * a store in trouble shows in the API's own answers (docs/server.md#health-check).
 */
export const healthCheck: WireHandler = async (req) => {
  if (segmentsOf(splitUrl(req.url).path).length !== 1) return errorResponse(404, 'No such page under /_health');
  if (req.method !== 'GET' && req.method !== 'HEAD') return errorResponse(405, `Method ${req.method} not allowed here`, { Allow: 'GET, HEAD' });
  // no-store: a cached "ok" would hide a server that has since stopped.
  const headers = { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' };
  return req.method === 'HEAD' ? { status: 200, headers } : { status: 200, headers, body: '{"status":"ok"}' };
};
