import type { ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { CallAnswer, RateFigures } from '@sdp/core';
import { refuseUpgrade } from './socket-guard.ts';
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
    write: ({ text }, done) => {
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
      write: ({ text }, done) => {
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

/** A refusal's status, body and headers, from the engine's answer: JSON with `error` and `message`, the figures of a 429. */
export function refusal(answer: CallAnswer): { status: number; body: StreamMessage; headers: Record<string, string> } {
  const error = (answer.body as { error?: unknown } | undefined)?.error;
  const message = typeof error === 'string' ? error : 'There was a problem starting your connection. Please reconnect.';
  const status = answer.status;
  const headers = status === 429 && answer.rate ? rateHeaders(answer.rate) : {};
  return { status, body: { error: message, message, status: 'failure' }, headers };
}

/** A refusal as a fetch `Response`, as `refuseHttp` answers it on node:http. */
export function refusalResponse(answer: CallAnswer): Response {
  const { status, body, headers } = refusal(answer);
  return new Response(JSON.stringify(body) + '\n', { status, headers: { 'Content-Type': 'application/json', ...headers } });
}

export function refuseHttp(res: ServerResponse, answer: CallAnswer): void {
  const { status, body, headers } = refusal(answer);
  if (res.headersSent) return void res.destroy();
  res.writeHead(status, { 'Content-Type': 'application/json', Connection: 'close', ...headers });
  res.end(JSON.stringify(body) + '\n');
}

export function refuseUpgradeWith(socket: Duplex, answer: CallAnswer): void {
  const { status, body, headers } = refusal(answer);
  refuseUpgrade(socket, status, body.message as string, headers);
}

/** What a transport answers for a failure of its own (the engine never answered). */
export const problemAnswer = (): CallAnswer => ({ status: 500, body: { error: 'There was a problem starting your connection. Please reconnect.' } });
