import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import * as wsModule from 'ws';
import WebSocket from 'ws';
import type { Delivered, MessageSink } from './live-connection.ts';
import { problemAnswer, refuseUpgradeWith } from './stream-answers.ts';
import type { StreamTarget } from './stream-target.ts';
import { guardUpgrade, handshakeProblem, refuseUpgrade } from './socket-guard.ts';
import type { WebSocketHost } from './transport-host.ts';

/**
 * A WebSocket connection: the handshake is checked before anything is decided (a handshake `ws` would
 * refuse opens nothing and charges nothing), the engine opens the connection, then `ws` completes the
 * upgrade. The socket has an error listener and a deadline from its head on; a peer gone while the
 * engine decided is ended at once.
 */
export async function serveWebSocket(host: WebSocketHost, req: IncomingMessage, socket: Duplex, head: Buffer, target: StreamTarget): Promise<void> {
  const guard = guardUpgrade(socket, host.handshakeMs);
  const problem = handshakeProblem(req);
  if (problem) {
    guard.settled();
    return refuseUpgrade(socket, problem.status, problem.message, problem.headers);
  }
  let gone = false;
  socket.once('close', () => (gone = true));
  let ws: WebSocket | undefined;
  const sink = webSocketSink(() => ws, socket);
  let admitted;
  try {
    admitted = await host.admit(target, 'websocket', sink);
  } catch (error) {
    host.onError(error);
    guard.settled();
    return refuseUpgradeWith(socket, problemAnswer());
  }
  if (admitted.refused) {
    guard.settled();
    return refuseUpgradeWith(socket, admitted.refused);
  }
  const { conn, rate } = admitted;
  if (gone || socket.destroyed || !socket.writable || host.closing) {
    guard.settled();
    socket.destroy();
    return void host.end(conn, 'client gone');
  }
  host.upgradeRates.set(req, rate);
  host.wss.handleUpgrade(req, socket, head, (opened) => {
    ws = opened;
    host.register(conn);
    opened.on('close', () => void host.end(conn, 'client closed'));
    opened.on('error', () => void host.end(conn, 'socket error'));
    opened.on('message', (data, isBinary) => host.actOnText(conn, isBinary ? '' : data.toString()));
    // A pong answers each ping whether or not the peer reads: a peer that pings and never reads is held
    // to the connection's bound like one that never reads its messages.
    opened.on('ping', () => conn.checkHeld());
    host.begin(conn, target);
  });
  guard.settled();
  // `ws` completes a valid upgrade at once; one it refused (the socket no longer readable, say) never calls back.
  if (!ws) {
    socket.destroy();
    void host.end(conn, 'handshake refused');
  }
}

type FrameOptions = { fin: boolean; opcode: number; mask: boolean; readOnly: boolean; rsv1: boolean };
type Framing = { Sender?: { frame(data: Buffer, options: FrameOptions): Buffer[] } };

/**
 * `ws`'s own framing, the frame its `send` writes, as a header and the payload: a named export of its
 * ES module, a property of its CommonJS one, absent from its type declarations.
 */
const { frame: frameOf } = ((wsModule as Framing).Sender ?? (WebSocket as unknown as Framing).Sender)!;

/** A text message as one unmasked, uncompressed, final WebSocket frame: what `ws.send(text)` writes on this server. */
export function textFrame(text: string): Buffer {
  // A header and the payload, or the header alone for an empty message.
  return Buffer.concat(frameOf(Buffer.from(text), { fin: true, opcode: 1, mask: false, readOnly: false, rsv1: false }));
}

/** Bytes a corked socket holds at most before they are written (then it is corked again). */
const CORKED_BYTES = 16 * 1024;

/**
 * Frames to a WebSocket, each told whether it was delivered. A message's frame is made once however many
 * connections it goes to (`OutText.frame`) and written to the socket as it is: the host's `ws` server
 * compresses nothing, so its sender writes each frame of its own (a close, a pong) to the socket the
 * moment it is made, and a frame written beside it keeps its place.
 *
 * Delivery callbacks wait in send order behind one callback for every write that carries some: a write
 * with a callback of its own cost a tick of its own, where writes sharing one are answered together
 * (the socket answers writes in the order they were made, errors included). The queue is read from its
 * head (an array's shift moves every entry behind it: thousands, for a consumer that falls behind) and
 * compacted once its read part is the larger half.
 *
 * Corked (a page of matches), frames reach the socket in one write (one system call) for each
 * `CORKED_BYTES`, not one a frame, and each such part is one entry of the queue: its last frame is held
 * back until the part is written, to carry the part's one callback.
 */
export function webSocketSink(socket: () => WebSocket | undefined, raw: Duplex): MessageSink {
  let sent: (Delivered | Delivered[])[] = [];
  let answered = 0;
  let corked = false;
  /** Bytes of frames written since the socket was corked: not yet written to it, so not unread. */
  let corkedBytes = 0;
  /** Corked: the last frame, not yet handed to the socket, and what the part written so far is to be told. */
  let held: Buffer | undefined;
  let part: Delivered[] = [];
  const onSent = (error?: Error | null): void => {
    const done = sent[answered];
    if (done === undefined) return;
    sent[answered++] = undefined as unknown as Delivered;
    if (answered >= 1024 && answered * 2 >= sent.length) {
      sent = sent.slice(answered);
      answered = 0;
    }
    if (typeof done === 'function') return done(!error);
    for (const d of done) d(!error);
  };
  /** Hands the held frame to the socket, with the part's callback if it has anything to tell. */
  const release = (): void => {
    if (held === undefined) return;
    const frame = held;
    held = undefined;
    if (part.length === 0) return void raw.write(frame);
    sent.push(part);
    part = [];
    raw.write(frame, onSent);
  };
  return {
    write: (out, done) => {
      const ws = socket();
      // Past its close (or before its open) nothing more may be written: what `send` would refuse.
      if (!ws || ws.readyState !== WebSocket.OPEN) return done?.(false);
      const frame = (out.frame ??= textFrame(out.text));
      if (corked) {
        // Counted once the socket took it. A large page goes out in parts: what waits corked stays
        // small beside the connection's bound on unread bytes, which does not count it.
        if (held !== undefined) {
          raw.write(held);
          corkedBytes += held.length;
        }
        held = frame;
        if (done) part.push(done);
        if (corkedBytes + frame.length >= CORKED_BYTES) {
          release();
          corkedBytes = 0;
          raw.uncork();
          raw.cork();
        }
        return;
      }
      if (!done) return void raw.write(frame);
      if (ws.bufferedAmount === 0 && sent.length === answered) {
        // Nothing waits before it: written straight to the socket, whose kernel buffer took the frame
        // (or its start, when the buffer filled on it; a cut consumer may then be counted one message
        // it did not read whole). No callback to hold: the common case costs nothing more than a send.
        raw.write(frame);
        return done(true);
      }
      sent.push(done);
      raw.write(frame, onSent);
    },
    buffered: () => (socket()?.bufferedAmount ?? 0) - corkedBytes,
    cork: () => {
      corked = true;
      raw.cork();
    },
    uncork: () => {
      release();
      corked = false;
      corkedBytes = 0;
      raw.uncork();
    },
    close: () => {
      // What was sent before the close goes before its frame.
      release();
      const ws = socket();
      ws?.close(1000);
      setTimeout(() => ws?.terminate(), 1000).unref();
    },
  };
}
