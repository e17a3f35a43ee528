import { describe, expect } from 'vitest';
import { fc, test } from '@fast-check/vitest';
import * as wsModule from 'ws';
import { textFrame } from './websocket-transport.ts';

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
