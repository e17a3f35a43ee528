import type { IncomingMessage } from 'node:http';
import type { StreamTransport } from '@sdp/core/internal';
import type { CallAnswer, RateFigures } from '@sdp/core';
import type { Clock } from '@sdp/core/kernel';
import type { WebSocketServer } from 'ws';
import type { ActionSplitter } from './action-splitter.ts';
import type { LiveConnection, MessageSink } from './live-connection.ts';
import type { StreamTarget } from './stream-target.ts';

/** A connection the engine opened for a request (and, for a single-hash stream, subscribed), or its refusal. */
export type Admitted = { conn: LiveConnection; rate: RateFigures; refused?: undefined } | { refused: CallAnswer; conn?: undefined };

/**
 * What a transport asks of the stream host: a transport carries bytes (a handshake, chunks, frames) and
 * asks the host, which asks the engine, for every decision.
 */
export interface TransportHost {
  readonly clock: Clock;
  readonly onError: (error: unknown) => void;
  /** Whether the host is closing (new connections are not taken). */
  readonly closing: boolean;
  /** Opens a connection for the request through the engine's door, with the sink its messages go to. */
  admit(target: StreamTarget, transport: StreamTransport, sink: MessageSink): Promise<Admitted>;
  /** The connection is live: listed, and fed. */
  register(conn: LiveConnection): void;
  /** Subscribes what the request named; the instant it began. */
  begin(conn: LiveConnection, target: StreamTarget): number;
  end(conn: LiveConnection, reason: string): Promise<void>;
  actionsFrom(conn: LiveConnection, splitter: ActionSplitter, chunk: string): void;
  actOnText(conn: LiveConnection, text: string): void;
}

/** What the WebSocket transport needs beside: the `ws` server, and the figures for each 101 in progress. */
export interface WebSocketHost extends TransportHost {
  readonly wss: WebSocketServer;
  /** Time an upgrade may take from its head to its 101 or refusal. */
  readonly handshakeMs: number;
  readonly upgradeRates: WeakMap<IncomingMessage, RateFigures>;
}
