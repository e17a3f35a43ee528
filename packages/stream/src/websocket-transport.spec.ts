import { describe, expect } from 'vitest';
import { fc, test } from '@fast-check/vitest';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import * as wsModule from 'ws';
import WebSocket, { WebSocketServer } from 'ws';
import { textFrame, webSocketSink } from './websocket-transport.ts';

/** What `ws` itself writes for `send(text)` on a server's socket (no compression): its sender over a socket that records. */
function sentByWs(text: string): Buffer {
  const chunks: Buffer[] = [];
  const socket = { cork() {}, uncork() {}, write: (chunk: Buffer | string) => void chunks.push(Buffer.from(chunk)) };
  const Sender = (wsModule as unknown as { Sender: new (socket: unknown) => { send(data: string, options: object): void } }).Sender;
  new Sender(socket).send(text, { binary: false, compress: false, fin: true, mask: false });
  return Buffer.concat(chunks);
}

describe('WebSocket frames made once for every connection', () => {
  test.prop([fc.oneof(fc.string({ unit: 'grapheme', maxLength: 300 }), fc.integer({ min: 0, max: 70_000 }).map((n) => 'é'.repeat(n)))], { numRuns: 60 })(
    'a pre-made frame is byte for byte what ws.send writes, whatever the length (every header form) and characters',
    (text) => {
      expect(textFrame(text).equals(sentByWs(text))).toBe(true);
    },
  );
});

/** A server's WebSocket with its raw socket (as the host holds them) and a client that keeps what it reads. */
async function socketPair() {
  const server = createServer();
  const wss = new WebSocketServer({ noServer: true, perMessageDeflate: false });
  const opened = new Promise<{ ws: WebSocket; raw: Duplex }>((resolve) => {
    server.on('upgrade', (req, raw: Duplex, head) => wss.handleUpgrade(req, raw, head, (ws) => resolve({ ws, raw })));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const client = new WebSocket(`ws://127.0.0.1:${(server.address() as AddressInfo).port}/`);
  const received: string[] = [];
  client.on('message', (data) => received.push(String(data)));
  const closed = new Promise<void>((r) => client.once('close', () => r()));
  const { ws, raw } = await opened;
  return {
    sink: webSocketSink(() => ws, raw),
    received,
    closed,
    stop: async () => {
      client.terminate();
      wss.close();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

type Op = { kind: 'cork' } | { kind: 'uncork' } | { kind: 'write'; size: number; counted: boolean };
const op: fc.Arbitrary<Op> = fc.oneof(
  { arbitrary: fc.constant({ kind: 'cork' as const }), weight: 1 },
  { arbitrary: fc.constant({ kind: 'uncork' as const }), weight: 1 },
  { arbitrary: fc.record({ kind: fc.constant('write' as const), size: fc.oneof(fc.integer({ min: 0, max: 300 }), fc.integer({ min: 5_000, max: 40_000 })), counted: fc.boolean() }), weight: 6 },
);

describe('the WebSocket sink', () => {
  test.prop([fc.array(op, { maxLength: 40 }), fc.boolean()], { numRuns: 25 })(
    'corked or not, every message arrives whole and in order, each counted once and as delivered; a close comes after what was written before it',
    async (ops, closeCorked) => {
      const pair = await socketPair();
      try {
        const texts: string[] = [];
        const told: boolean[][] = [];
        let corked = false;
        for (const o of ops) {
          if (o.kind === 'cork' && !corked) (corked = true), pair.sink.cork!();
          else if (o.kind === 'uncork' && corked) (corked = false), pair.sink.uncork!();
          else if (o.kind === 'write') {
            const i = texts.length;
            const text = `${i}:${'x'.repeat(o.size)}`;
            texts.push(text);
            told.push([]);
            pair.sink.write({ text }, o.counted ? (ok) => told[i]!.push(ok) : undefined);
            if (!o.counted) told[i]!.push(true);
          }
        }
        if (corked && !closeCorked) pair.sink.uncork!();
        // The close, as the host's end does it (corked or not), then the page's end.
        pair.sink.close();
        if (corked && closeCorked) pair.sink.uncork!();
        await pair.closed;
        expect(pair.received).toEqual(texts);
        expect(told).toEqual(texts.map(() => [true]));
      } finally {
        await pair.stop();
      }
    },
    30_000,
  );
});
