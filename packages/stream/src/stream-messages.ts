import type { RelayNotice } from '@sdp/core/internal';

/**
 * What the server says on a stream, worded as the original's clients read it (docs/clients.md#stream-clients and
 * §5.1): every status message carries `status` and `message` (one client reads a message only with
 * both), ticks included; nothing ever carries `reconnect` alone.
 */
export type StreamMessage = Record<string, unknown>;

export const subscribedMessage = (hash: string): StreamMessage => ({ status: 'success', message: `Successfully subscribed to hash ${hash}`, hash });

export const tickMessage = (nowMs: number): StreamMessage => ({ tick: Math.floor(nowMs / 1000), status: 'connected', message: 'Waiting for data' });

/** An unknown hash on a multi connection: the hash is the message's third word (one old client reads it there). */
export const unknownHashWarning = (hash: string): StreamMessage => ({ status: 'warning', message: `The hash ${hash} doesn't exist`, hash });

export const rateLimitWarning = (hash: string, detail: string): StreamMessage => ({
  status: 'warning',
  message: `The hash ${hash} was not subscribed: ${detail}`,
  hash,
});

export const refusedWarning = (hash: string, detail: string): StreamMessage => ({ status: 'warning', message: `The hash ${hash} was not subscribed: ${detail}`, hash });

/**
 * The relay dropped interactions that matched the hash: the account's matches passed what it may relay
 * in a minute (`relayBytesPerWindow`). Said once per hash and minute, however many were dropped.
 */
export const matchesDroppedWarning = (hash: string): StreamMessage => ({
  status: 'warning',
  message: `Interactions matching hash ${hash} were dropped: the account's matches passed what its package may stream in a minute`,
  hash,
});

/** The hash is subscribed but not matched: the account has more live hashes than its package matches (`matchedStreamHashes`). */
export const unmatchedHashWarning = (hash: string): StreamMessage => ({
  status: 'warning',
  message: `The hash ${hash} is not being matched: the account's subscriptions hold more hashes than its package matches`,
  hash,
});

/** What a relay event says to the subscribers of each hash it names (nothing for an event of matches only). */
export function relayNoticeMessages(notice: RelayNotice): [string, StreamMessage][] {
  const out: [string, StreamMessage][] = [];
  for (const hash of notice.dropped?.hashes ?? []) out.push([hash, matchesDroppedWarning(hash)]);
  for (const hash of notice.unmatched ?? []) out.push([hash, unmatchedHashWarning(hash)]);
  return out;
}

export const invalidActionWarning = (detail?: string): StreamMessage => ({
  status: 'warning',
  message: `The JSON received from the message was invalid${detail ? `: ${detail}` : ''}`,
});

export const slowWarning = (): StreamMessage => ({
  status: 'warning',
  message: 'You are consuming data too slowly. If you do not consume data faster you will be disconnected.',
});

export const slowFailure = (): StreamMessage => ({ status: 'failure', message: 'You are consuming data too slowly and have been disconnected' });

export const stopFailure = (): StreamMessage => ({ status: 'failure', message: 'A stop message was received. You will now be disconnected' });

export const closingFailure = (): StreamMessage => ({ status: 'failure', message: 'The server is shutting down. Please reconnect.' });

/** The connection was ended elsewhere (its server taken for dead): the documented failure, then the close. */
export const keepAliveFailure = (): StreamMessage => ({ status: 'failure', message: 'There was a problem keeping the connection alive' });

export const problemFailure = (): StreamMessage => ({ status: 'failure', message: 'There was a problem starting your connection. Please reconnect.' });

/**
 * An interaction for a subscription. On a multi connection (every WebSocket, `/multi`, the duplex `/`) it
 * comes wrapped with its hash; on a single-hash HTTP stream bare. A deletion carries `deleted: true` at
 * the top and in `data`, since clients disagree on where they look.
 */
export function interactionMessage(hash: string, interaction: Record<string, unknown>, wrapped: boolean): StreamMessage {
  const deleted = interaction.deleted === true;
  if (!wrapped) return interaction;
  return deleted ? { hash, deleted: true, data: interaction } : { hash, data: interaction };
}
