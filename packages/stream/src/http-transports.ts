import type { IncomingMessage, ServerResponse } from 'node:http';
import { keepRequestOpen } from '@sdp/http';
import { ActionSplitter } from './action-splitter.ts';
import type { LiveConnection } from './live-connection.ts';
import { pacedChunks, rateHeaders, refusalResponse, refuseHttp, streamedBody } from './stream-answers.ts';
import { tickMessage } from './stream-messages.ts';
import type { StreamTarget } from './stream-target.ts';
import type { TransportHost } from './transport-host.ts';

const STREAM_HEADERS = { 'Content-Type': 'application/json', 'Cache-Control': 'no-cache' };

/**
 * The HTTP streams on node:http: `GET /<hash>`, `GET /multi?hashes=` (chunked, one message a chunk) and
 * the duplex `GET /`, whose chunked request body carries actions for as long as the connection lasts.
 */
export async function serveHttp(host: TransportHost, req: IncomingMessage, res: ServerResponse, target: StreamTarget): Promise<void> {
  const admitted = await host.admit(target, target.kind === 'duplex' ? 'http-duplex' : 'http', pacedChunks(res));
  if (admitted.refused) return refuseHttp(res, admitted.refused);
  const { conn, rate } = admitted;
  if (res.destroyed || req.socket.destroyed || host.closing) {
    res.destroy();
    return void host.end(conn, 'client gone');
  }
  res.writeHead(200, { ...STREAM_HEADERS, 'Transfer-Encoding': 'chunked', ...rateHeaders(rate) });
  res.flushHeaders();
  host.register(conn);
  res.on('close', () => void host.end(conn, 'client closed'));
  const now = host.begin(conn, target);
  if (target.kind === 'multi' && target.hashes.length === 0) conn.send(tickMessage(now), now);
  if (target.kind === 'duplex') {
    // Its body of actions lasts as long as the connection: past the server's whole-request time limit.
    keepRequestOpen(req.socket);
    const splitter = new ActionSplitter();
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => host.actionsFrom(conn, splitter, chunk));
  }
}

/**
 * The two HTTP streams for runtimes that serve fetch `Request`s: a `Response` whose body streams the
 * messages, one per chunk, or the refusal.
 */
export async function serveFetch(host: TransportHost, request: Request, target: StreamTarget): Promise<Response> {
  let conn: LiveConnection | undefined;
  const { body, sink } = streamedBody(() => {
    if (conn) void host.end(conn, 'client closed');
  });
  const admitted = await host.admit(target, 'http', sink);
  if (admitted.refused) return refusalResponse(admitted.refused);
  conn = admitted.conn;
  const live = conn;
  // A client that went while this was decided: nobody reads the answer, the connection ends at once.
  if (request.signal.aborted) {
    void host.end(live, 'client gone');
    return new Response(null, { status: 499 });
  }
  request.signal.addEventListener('abort', () => void host.end(live, 'client closed'), { once: true });
  host.register(live);
  const now = host.begin(live, target);
  if (target.kind === 'multi' && target.hashes.length === 0) live.send(tickMessage(now), now);
  return new Response(body, { status: 200, headers: { ...STREAM_HEADERS, ...rateHeaders(admitted.rate) } });
}
