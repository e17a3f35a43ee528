import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import { localUrl, processBudget, type ConnectionBudget, type RunningServer } from '@sdp/http';

/**
 * A server of a `--workers` worker that listens on no port of its own: the primary reads each new
 * connection's request head, picks the worker that owns its account, and hands it the socket and the bytes
 * it read (`adopt`). The server parses them as if they had just arrived.
 */
export interface HandedServer extends RunningServer {
  adopt(socket: Socket, head: Buffer): void;
}

/**
 * Wraps `server` (configured, not listening) as the running server of the primary's port. `close` takes
 * no more connections, closes each as soon as it is idle, and resolves when the last handed one has
 * ended: a server that never listened has no count of its own of the connections it was handed.
 */
export function handedServer(server: Server, shown: { host: string; port: number }, options: { closeAll?: boolean; budget?: ConnectionBudget } = {}): HandedServer {
  const open = new Set<Socket>();
  // The primary's budget counts the connections it holds; this process holds the ones it was handed.
  const budget = options.budget ?? processBudget();
  let closing = false;
  // node:http checks its header and request time limits (slow clients) only once the server has said
  // it listens; a server handed its connections never listens, so it says so itself.
  server.emit('listening');
  return {
    server,
    port: shown.port,
    host: shown.host,
    url: localUrl(shown.host, shown.port),
    adopt(socket, head) {
      if (closing) {
        socket.destroy();
        return;
      }
      if (!budget.admit(socket)) return;
      open.add(socket);
      socket.once('close', () => open.delete(socket));
      server.emit('connection', socket);
      // After the parser is attached: it reads the head the primary read, then the socket's own bytes.
      if (head.length > 0) socket.emit('data', head);
      socket.resume();
    },
    close: () =>
      new Promise<void>((resolve) => {
        closing = true;
        // Stops the time-limit checks; the server never listened, so its "not running" error is moot.
        server.close(() => {});
        if (options.closeAll) server.closeAllConnections();
        const done = () => {
          if (open.size > 0) return false;
          clearInterval(sweep);
          resolve();
          return true;
        };
        // Connections turn idle as their last response goes out; close each as soon as it does.
        const sweep = setInterval(() => {
          server.closeIdleConnections();
          done();
        }, 20);
        server.closeIdleConnections();
        done();
      }),
  };
}
