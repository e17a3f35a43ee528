import type { ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { CreditsExhausted, DomainError, type RateFigures } from '@sdp/core';
import type { Delivered, MessageSink } from './live-connection.ts';
import { interactionMessage, type StreamMessage } from './stream-messages.ts';

/**
 * Chunks written one at a time, each once the one before has left for the network: readers that parse
 * only the first line of what one read returns (docs/clients.md#stream-clients) then meet one message per read as far
 * as this side can make it so. What waits is counted as unread, so the connection's bound covers it.
 */
export function pacedChunks(res: ServerResponse): MessageSink {
  const socket = res.socket;
  const queue: { chunk: string; done: Delivered | undefined }[] = [];
  let queued = 0;
  let writing = false;
  let ending = false;
  const pump = (): void => {
    if (writing) return;
    if (res.destroyed) {
      // What waited never leaves.
      for (const { done } of queue.splice(0)) done?.(false);
      return;
    }
    const next = queue.shift();
    if (next === undefined) {
      if (ending) res.end();
      return;
    }
    queued -= next.chunk.length;
    writing = true;
    res.write(next.chunk, (error) => {
      next.done?.(!error);
      writing = false;
      setImmediate(pump);
    });
  };
  res.once('close', () => setImmediate(pump));
  return {
    write: (text, done) => {
      if (ending) return done?.(false);
      queue.push({ chunk: text + '\n', done });
      queued += text.length + 1;
      pump();
    },
    buffered: () => queued + res.writableLength + (socket?.writableLength ?? 0),
    close: () => {
      ending = true;
      pump();
      // A reader that stopped reading never takes the end: the socket goes after a grace.
      setTimeout(() => socket?.destroy(), 1000).unref();
    },
  };
}

/** A matched interaction's message text, built around its JSON (made once for every connection). */
export function messageText(hash: string, interaction: Record<string, unknown>, json: string, wrapped: boolean): string {
  if (!wrapped) return json;
  if (interaction.deleted === true) return JSON.stringify(interactionMessage(hash, interaction, true));
  return `{"hash":${JSON.stringify(hash)},"data":${json}}`;
}

export function rateHeaders(rate: RateFigures): Record<string, string> {
  return {
    'X-RateLimit-Limit': String(rate.limit),
    'X-RateLimit-Remaining': String(rate.remaining),
    'X-RateLimit-Cost': String(rate.cost),
    'X-RateLimit-Reset': String(rate.reset),
    'X-RateLimit-Reset-Ttl': String(rate.resetTtl),
  };
}

/** A refusal as a fetch `Response`, as `refuseHttp` answers it on node:http. */
export function refusalResponse(error: unknown): Response {
  const { status, body, headers } = refusal(error);
  return new Response(JSON.stringify(body) + '\n', { status, headers: { 'Content-Type': 'application/json', ...headers } });
}

/**
 * A fetch `Response` body that carries one message per chunk (`<text>\n`), and the connection's sink
 * writing into it. A chunk is handed to the stream only when the reader asks for one, so a message is
 * delivered exactly when it is read; what waits is counted as unread (its byte size), so the
 * connection's bound covers it as it covers a socket's buffer. `onCancel` is told when the reader goes.
 */
export function streamedBody(onCancel: () => void): { body: ReadableStream<Uint8Array>; sink: MessageSink } {
  const encoder = new TextEncoder();
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  let open = true;
  let ending = false;
  /** Whether the reader waits for a chunk (none was waiting when it asked). */
  let wanted = false;
  const waiting: { bytes: Uint8Array; done: Delivered | undefined }[] = [];
  let waitingBytes = 0;
  const hand = (bytes: Uint8Array, done: Delivered | undefined): void => {
    controller.enqueue(bytes);
    done?.(true);
  };
  const end = (): void => {
    open = false;
    controller.close();
  };
  const body = new ReadableStream<Uint8Array>(
    {
      start: (c) => {
        controller = c;
      },
      pull: () => {
        const next = waiting.shift();
        if (!next) {
          if (ending && open) end();
          else wanted = true;
          return;
        }
        waitingBytes -= next.bytes.byteLength;
        hand(next.bytes, next.done);
      },
      cancel: () => {
        open = false;
        for (const { done } of waiting.splice(0)) done?.(false);
        waitingBytes = 0;
        onCancel();
      },
    },
    // A high-water mark of 0: `pull` runs only when the reader asks.
    new ByteLengthQueuingStrategy({ highWaterMark: 0 }),
  );
  return {
    body,
    sink: {
      write: (text, done) => {
        if (!open || ending) return done?.(false);
        const bytes = encoder.encode(text + '\n');
        if (wanted) {
          wanted = false;
          return hand(bytes, done);
        }
        waiting.push({ bytes, done });
        waitingBytes += bytes.byteLength;
      },
      buffered: () => (open ? waitingBytes : 0),
      close: () => {
        if (!open || ending) return;
        ending = true;
        // What waits is still read first; the end comes after it.
        if (waiting.length === 0) end();
      },
    },
  };
}

/** A refusal's status, body and headers: the core's status (429 for an allowance spent), JSON with `error` and `message`. */
function refusal(error: unknown): { status: number; body: StreamMessage; headers: Record<string, string> } {
  if (error instanceof DomainError) {
    const status = error instanceof CreditsExhausted ? 429 : error.status;
    const headers = error instanceof CreditsExhausted ? rateHeaders(error.figures) : {};
    return { status, body: { error: error.message, message: error.message, status: 'failure' }, headers };
  }
  throw error;
}

export function refuseHttp(res: ServerResponse, error: unknown): void {
  const { status, body, headers } = refusal(error);
  if (res.headersSent) return void res.destroy();
  res.writeHead(status, { 'Content-Type': 'application/json', Connection: 'close', ...headers });
  res.end(JSON.stringify(body) + '\n');
}

export function refuseUpgradeWith(socket: Duplex, error: unknown): void {
  const { status, body, headers } = refusal(error);
  refuseUpgrade(socket, status, body.message as string, headers);
}

const REASONS: Record<number, string> = { 400: 'Bad Request', 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found', 429: 'Too Many Requests', 500: 'Internal Server Error' };

/** An HTTP answer in place of the handshake's 101, then the socket closes. */
export function refuseUpgrade(socket: Duplex, status: number, message: string, headers: Record<string, string> = {}): void {
  if (socket.destroyed) return;
  const body = JSON.stringify({ error: message, message, status: 'failure' }) + '\n';
  const lines = [`HTTP/1.1 ${status} ${REASONS[status] ?? 'Error'}`, 'Content-Type: application/json', `Content-Length: ${Buffer.byteLength(body)}`, 'Connection: close'];
  for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`);
  socket.end(lines.join('\r\n') + '\r\n\r\n' + body);
}
