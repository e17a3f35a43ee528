import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';

/**
 * Time an upgrade may take from its head to the 101 or the refusal: node:http's header and request time
 * limits stop at the `upgrade` event, so the stream sets its own. Past it the socket is destroyed.
 */
export const HANDSHAKE_MS = 10_000;

/** Time a refused socket is given to take its answer before it is destroyed (a peer that never sends its FIN). */
export const REFUSAL_GRACE_MS = 1_000;

const ignore = (): void => {};

/**
 * Takes charge of a socket node:http handed over with an upgrade: an `error` listener, so a peer's reset
 * can never reach the process as an unhandled error, and a deadline for the handshake. `settled` stops
 * the deadline (the 101 went out, or the refusal has its own).
 */
export function guardUpgrade(socket: Duplex, ms = HANDSHAKE_MS): { settled: () => void } {
  if (!socket.listeners('error').includes(ignore)) socket.on('error', ignore);
  const timer = setTimeout(() => socket.destroy(), ms);
  timer.unref();
  return { settled: () => clearTimeout(timer) };
}

/**
 * Whether a WebSocket handshake is one `ws` will complete (RFC 6455 §4.2.1): checked before anything is
 * decided for it, so a handshake that would be refused opens nothing, charges nothing and holds no place.
 * `undefined` when valid; else the status and message of the refusal, with headers.
 */
export function handshakeProblem(req: IncomingMessage): { status: number; message: string; headers?: Record<string, string> } | undefined {
  if (req.method !== 'GET') return { status: 400, message: 'A WebSocket handshake is a GET' };
  if (!/^websocket$/i.test((req.headers.upgrade ?? '').trim())) return { status: 400, message: 'Upgrade must be websocket' };
  const key = req.headers['sec-websocket-key'];
  if (typeof key !== 'string' || !/^[+/0-9A-Za-z]{21}[AQgw]==$/.test(key.trim())) return { status: 400, message: 'Missing or invalid Sec-WebSocket-Key' };
  const version = req.headers['sec-websocket-version'];
  if (version !== '13' && version !== '8') return { status: 400, message: 'Unsupported WebSocket version', headers: { 'Sec-WebSocket-Version': '13, 8' } };
  return undefined;
}

const REASONS: Record<number, string> = { 400: 'Bad Request', 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found', 429: 'Too Many Requests', 500: 'Internal Server Error', 503: 'Service Unavailable' };

/**
 * An HTTP answer in place of the handshake's 101, then the socket is closed: ended, and destroyed after
 * a short grace whether or not the peer sends its FIN, so no refused socket outlives the refusal.
 */
export function refuseUpgrade(socket: Duplex, status: number, message: string, headers: Record<string, string> = {}): void {
  if (!socket.listeners('error').includes(ignore)) socket.on('error', ignore);
  if (socket.destroyed) return;
  const body = JSON.stringify({ error: message, message, status: 'failure' }) + '\n';
  const lines = [`HTTP/1.1 ${status} ${REASONS[status] ?? 'Error'}`, 'Content-Type: application/json', `Content-Length: ${Buffer.byteLength(body)}`, 'Connection: close'];
  for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`);
  socket.end(lines.join('\r\n') + '\r\n\r\n' + body);
  setTimeout(() => socket.destroy(), REFUSAL_GRACE_MS).unref();
}
