import { accountDecider, accountStream, isWellFormedApiKey, isWellFormedUsername, type Account } from '../accounting/account.ts';
import { ApiKeyDigests, constantTimeEqual } from '../accounting/api-key.ts';
import { creditsDecider, creditsStream, figuresOf, windowAt, type RateFigures } from '../accounting/credit-window.ts';
import { DEFAULT_PACKAGE } from '../accounting/package.ts';
import { Forbidden, NotFound, Unauthorized } from '../calls/errors.ts';
import type { EngineServices } from '../handling/handler.ts';
import { loadFilter } from '../filters/index.ts';
import type { UnitOfWork } from '../kernel/unit-of-work.ts';
import { streamConnectionsDecider, streamConnectionsStream, subscriptionOf, type StreamTransport } from './stream-connections.ts';

/** What a subscription costs from the general allowance: the cost of `/compile` (docs/contract.md#the-stream). */
export const STREAM_SUBSCRIBE_COST = 5;

export interface StreamCredentials {
  username: string;
  apiKey: string;
}

export interface Subscribed {
  /** False when the connection already had the hash (a repeat charges nothing). */
  charged: boolean;
  /** The general allowance after the subscription. */
  rate: RateFigures;
  /**
   * The subscription's place in the account's stream: it receives the `StreamInteractionsMatched` of a
   * greater stream version, and nothing before.
   */
  seq: number;
}

const DUMMY_SALT = '0'.repeat(32);
const DUMMY_DIGEST = '0'.repeat(64);

/**
 * The stream product's decisions, for its transports: who may stream, opening and closing a connection,
 * subscribing (charged here, in the same write as the subscription) and unsubscribing. Every decision is
 * an engine command: atomic, retried when another writer moved the account, confirmed before a refusal.
 */
export class StreamGate {
  private readonly digests = new ApiKeyDigests();
  /** Each account's decisions one after another: its connections all write the account's one stream. */
  private readonly lanes = new Map<string, Promise<unknown>>();

  constructor(private readonly engine: EngineServices) {}

  /**
   * Runs the account's stream decisions in turn on this process (a hundred connections closing at once
   * would otherwise each lose most attempts to the others); another process' writes are met by the
   * command's retries.
   */
  private inLane<T>(username: string, work: () => Promise<T>): Promise<T> {
    const before = this.lanes.get(username) ?? Promise.resolve();
    const run = before.then(work, work);
    const settled = run.then(() => undefined, () => undefined);
    this.lanes.set(username, settled);
    void settled.then(() => {
      if (this.lanes.get(username) === settled) this.lanes.delete(username);
    });
    return run;
  }

  /**
   * The account the credentials open: 401 for unknown or wrong ones (an unknown name costs the same
   * digest), 403 for a denied account. Keys of identities do not open streams.
   */
  async authenticate(credentials: StreamCredentials | undefined): Promise<Account> {
    const creds = credentials && isWellFormedUsername(credentials.username) && isWellFormedApiKey(credentials.apiKey) ? credentials : undefined;
    if (!creds) throw new Unauthorized('A username and API key are both required');
    const account = await this.engine.command((uow) => uow.load(accountDecider, accountStream(creds.username)));
    if (!account.exists) {
      constantTimeEqual(this.digests.digest(DUMMY_SALT, creds.apiKey), DUMMY_DIGEST);
      throw new Unauthorized();
    }
    if (!constantTimeEqual(this.digests.digest(account.salt, creds.apiKey), account.keyHash)) throw new Unauthorized();
    if (account.denied) throw new Forbidden(`Account denied access because of a violation${account.deniedReason ? `: ${account.deniedReason}` : ''}`);
    return account;
  }

  /** Opens a connection (bounded by the package's `stream_connections`); its id. */
  async open(username: string, transport: StreamTransport): Promise<string> {
    const connection = this.engine.ids.hex(16);
    await this.inLane(username, () => this.engine.command(async (uow) => {
      const account = await existing(uow, username);
      const limit = account.package.stream_connections ?? DEFAULT_PACKAGE.stream_connections;
      await uow.execute(streamConnectionsDecider, streamConnectionsStream(username), { type: 'OpenStreamConnection', connection, transport, at: uow.now, limit });
    }));
    return connection;
  }

  /**
   * Subscribes the connection to a hash and charges the subscription, or refuses: 404 for a hash no
   * filter was compiled with, 403 for a denied account, 429 (`CreditsExhausted`) when the allowance
   * cannot pay, 400 past 5,000 hashes. A refusal writes nothing.
   */
  async subscribe(username: string, connection: string, hash: string): Promise<Subscribed> {
    return this.inLane(username, () => this.engine.command(async (uow) => {
      const account = await existing(uow, username);
      if (account.denied) throw new Forbidden(`Account denied access because of a violation${account.deniedReason ? `: ${account.deniedReason}` : ''}`);
      if (!(await loadFilter(uow, hash))) throw new NotFound(`The hash ${hash} doesn't exist`);
      const line = { key: 'general', limit: account.package.credits_per_hour, cost: STREAM_SUBSCRIBE_COST };
      const h = hash.toLowerCase();
      const subscribed = await uow.execute(streamConnectionsDecider, streamConnectionsStream(username), { type: 'SubscribeStream', connection, hash: h, at: uow.now });
      const seq = subscriptionOf(subscribed.state, connection, h)!.seq;
      if (subscribed.events.length === 0) return { charged: false, rate: await figures(uow, username, line.limit), seq };
      const { state } = await uow.execute(creditsDecider, creditsStream(username), { type: 'ChargeCredits', at: uow.now, endpoint: 'stream', lines: [line] });
      return { charged: true, rate: figuresOf(windowAt(state, 'general', uow.now), line.limit, STREAM_SUBSCRIBE_COST, uow.now), seq };
    }));
  }

  async unsubscribe(username: string, connection: string, hash: string): Promise<void> {
    await this.inLane(username, () =>
      this.engine.command((uow) =>
        uow.execute(streamConnectionsDecider, streamConnectionsStream(username), { type: 'UnsubscribeStream', connection, hash: hash.toLowerCase(), at: uow.now }),
      ),
    );
  }

  /** Ends the connection and every subscription on it (a repeat is no change). */
  async close(username: string, connection: string, reason: string): Promise<void> {
    await this.inLane(username, () =>
      this.engine.command((uow) =>
        uow.execute(streamConnectionsDecider, streamConnectionsStream(username), { type: 'CloseStreamConnection', connection, at: uow.now, reason }),
      ),
    );
  }

  /** The account's general allowance now, charging nothing (the headers of a stream that subscribes nothing). */
  async rate(username: string): Promise<RateFigures> {
    return this.engine.command(async (uow) => figures(uow, username, (await existing(uow, username)).package.credits_per_hour));
  }
}

async function existing(uow: UnitOfWork, username: string): Promise<Account> {
  const account = await uow.load(accountDecider, accountStream(username));
  if (!account.exists) throw new NotFound(`No account named ${username}`);
  return account;
}

async function figures(uow: UnitOfWork, username: string, limit: number): Promise<RateFigures> {
  const credits = await uow.load(creditsDecider, creditsStream(username));
  return figuresOf(windowAt(credits, 'general', uow.now), limit, STREAM_SUBSCRIBE_COST, uow.now);
}
