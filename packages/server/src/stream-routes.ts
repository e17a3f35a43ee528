import { createServer, type Server } from 'node:http';
import type { RunningServer } from '@sdp/http';
import { bindPort, jsonResponse, type ConnectionBudget } from '@sdp/http';
import type { StreamHost } from '@sdp/stream';
import type { OperatorRoute } from './operator-api.ts';

/** `GET /_admin/streams`: the stream connections open on this process (docs/contract.md#fixed-names-of-the-server "Stream"). */
export function streamRoutes(streams: StreamHost): OperatorRoute[] {
  return [{ method: 'GET', path: ['streams'], run: async () => jsonResponse(200, { connections: streams.connections() }) }];
}

/**
 * `--stream-port`: the stream alone on a port of its own. Its requests may last as long as the client
 * reads (the duplex form's body never ends), so this listener has no whole-request time limit; headers
 * still must arrive within 30 s, and anything that is not a stream is a 404.
 */
export async function listenStreamOnly(streams: StreamHost, port: number, host: string, budget?: ConnectionBudget): Promise<RunningServer> {
  const server = streamOnlyServer(streams);
  const { port: bound, url } = await bindPort(server, port, host, budget ? { budget } : {});
  return {
    server,
    port: bound,
    host,
    url,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** `--stream-port`'s server, attached to the stream host, not yet listening (a worker of `--workers` is handed its connections). */
export function streamOnlyServer(streams: StreamHost): Server {
  const server = createServer({ requireHostHeader: false }, (_req, res) => {
    res.writeHead(404, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify({ error: 'This port serves the stream only: /<hash>, /multi, or WebSocket /, /multi, /<hash>' }));
  });
  server.requestTimeout = 0;
  server.headersTimeout = 30_000;
  streams.attach(server);
  return server;
}
