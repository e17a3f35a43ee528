import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { WebSocket } from 'ws';
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
  const sink = webSocketSink(() => ws);
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

/**
 * Frames to a WebSocket, each told whether it was delivered. Delivery callbacks wait in send order
 * behind one callback for every frame: a write with a callback of its own cost a tick of its own, where
 * writes sharing one are answered together (`ws` answers writes in the order they were made, errors
 * included). The queue is read from its head (an array's shift moves every entry behind it: thousands,
 * for a consumer that falls behind) and compacted once its read part is the larger half.
 */
function webSocketSink(socket: () => WebSocket | undefined): MessageSink {
  let sent: Delivered[] = [];
  let answered = 0;
  const onSent = (error?: Error | null): void => {
    const done = sent[answered];
    if (done === undefined) return;
    sent[answered++] = undefined as unknown as Delivered;
    if (answered >= 1024 && answered * 2 >= sent.length) {
      sent = sent.slice(answered);
      answered = 0;
    }
    done(!error);
  };
  return {
    write: (text, done) => {
      const ws = socket();
      if (!ws) return done?.(false);
      if (!done) return ws.send(text);
      if (ws.bufferedAmount === 0 && sent.length === answered) {
        // Nothing waits before it: written straight to the socket, whose kernel buffer took the frame
        // (or its start, when the buffer filled on it; a cut consumer may then be counted one message
        // it did not read whole). No callback to hold: the common case costs nothing more than a send.
        ws.send(text);
        return done(true);
      }
      sent.push(done);
      ws.send(text, onSent);
    },
    buffered: () => socket()?.bufferedAmount ?? 0,
    close: () => {
      const ws = socket();
      ws?.close(1000);
      setTimeout(() => ws?.terminate(), 1000).unref();
    },
  };
}
