import { accountDecider, accountStream, isWellFormedApiKey, isWellFormedUsername, type Account } from '../accounting/account.ts';
import { ApiKeyDigests, constantTimeEqual } from '../accounting/api-key.ts';
import { bindingFigures } from '../accounting/binding-figures.ts';
import { creditsDecider, creditsStream, type AllowanceLine, type RateFigures } from '../accounting/credit-window.ts';
import { DEFAULT_PACKAGE } from '../accounting/package.ts';
import { endpointById } from '../catalogue/endpoints.ts';
import { Params } from '../calls/params.ts';
import { Forbidden, NotFound, Unauthorized } from '../calls/errors.ts';
import type { EngineServices } from '../handling/handler.ts';
import { loadFilter } from '../filters/index.ts';
import type { UnitOfWork } from '../kernel/unit-of-work.ts';
import { LostHosts, type StreamHosting } from './lost-hosts.ts';
import { StreamConnectionsExceeded, connectionHosts, streamConnectionsDecider, streamConnectionsStream, subscriptionOf, type DeliveredCounts, type StreamTransport } from './stream-connections.ts';

/** What a subscription costs from the general allowance: the cost of `/compile` (docs/contract.md#the-stream). */
export const STREAM_SUBSCRIBE_COST = 5;

/** The endpoint a subscription is priced as, for the allowances an identity's calls draw from. */
const SUBSCRIPTION_PRICED_AS = endpointById('core.compile');

export interface StreamCredentials {
  username: string;
  apiKey: string;
}

/** Who opened a stream: the account, and the identity whose key it was (null for the account's own key). */
export interface StreamCaller {
  account: Account;
  identityId: string | null;
}

export interface Subscribed {
  /** False when the connection already had the hash (a repeat charges nothing). */
  charged: boolean;
  /** The general allowance after the subscription. */
  rate: RateFigures;
  /**
   * The subscription's place in the account's stream: it receives the `StreamInteractionsMatched` decided
   * on this version or a later one (their `seq`), and nothing before.
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

  /** Connections of hosts found dead, ended before a place is refused (only where hosts are recorded). */
  private readonly lost: LostHosts | undefined;

  /**
   * `hosting`: this process as a host of connections, on a store several processes share (each
   * connection records its host, and a dead host's places are freed); absent, connections carry no host.
   */
  constructor(
    private readonly engine: EngineServices,
    private readonly hosting?: StreamHosting,
  ) {
    this.lost = hosting && new LostHosts(engine, hosting);
  }

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
   * Who the credentials are, as the REST API reads them: the account's own key, or the key of one of its
   * identities (the engine's `IdentityAccess`). 401 for unknown or wrong ones (an unknown name costs the
   * same digest), 403 for a denied account.
   */
  async authenticate(credentials: StreamCredentials | undefined): Promise<StreamCaller> {
    const creds = credentials && isWellFormedUsername(credentials.username) && isWellFormedApiKey(credentials.apiKey) ? credentials : undefined;
    if (!creds) throw new Unauthorized('A username and API key are both required');
    const identities = this.engine.identities;
    const caller = await this.engine.command(async (uow): Promise<StreamCaller | undefined> => {
      const account = await uow.load(accountDecider, accountStream(creds.username));
      if (!account.exists) {
        constantTimeEqual(this.digests.digest(DUMMY_SALT, creds.apiKey), DUMMY_DIGEST);
        return undefined;
      }
      const keyHash = this.digests.digest(account.salt, creds.apiKey);
      if (constantTimeEqual(keyHash, account.keyHash)) return { account, identityId: null };
      const identityId = identities ? await identities.identityForKey(uow, account, keyHash) : null;
      return identityId === null ? undefined : { account, identityId };
    });
    if (!caller) throw new Unauthorized();
    const { account } = caller;
    if (account.denied) throw new Forbidden(`Account denied access because of a violation${account.deniedReason ? `: ${account.deniedReason}` : ''}`);
    return caller;
  }

  /**
   * Opens a connection (bounded by the package's `stream_connections`); its id. Refused for want of a
   * place, it first ends the account's connections whose hosts are dead, and tries once more.
   */
  async open(username: string, transport: StreamTransport): Promise<string> {
    const connection = this.engine.ids.hex(16);
    const hosting = this.hosting;
    const once = () => this.inLane(username, async () => {
      // Noted before the connection is written (and in the account's lane, after any release of the
      // holding by `close`): a sweep finding this host dead then knows the account.
      if (hosting) await hosting.liveness.hold(hosting.host, username);
      await this.engine.command(async (uow) => {
        const account = await existing(uow, username);
        const limit = account.package.stream_connections ?? DEFAULT_PACKAGE.stream_connections;
        const host = hosting ? { host: hosting.host } : {};
        await uow.execute(streamConnectionsDecider, streamConnectionsStream(username), { type: 'OpenStreamConnection', connection, transport, at: uow.now, limit, ...host });
      });
    });
    try {
      await once();
    } catch (error) {
      if (!(error instanceof StreamConnectionsExceeded && this.lost && (await this.lost.freePlaces(username)))) throw error;
      await once();
    }
    return connection;
  }

  /**
   * Subscribes the connection to a hash and charges the subscription, or refuses: 404 for a hash no
   * filter was compiled with, 403 for a denied account, 429 (`CreditsExhausted`) when the allowance
   * cannot pay, 400 past 5,000 hashes. A refusal writes nothing. A connection an identity opened also
   * draws from that identity's allowance, as a REST call with its key does: a subscription is charged as a
   * `/compile` (its cost, on the general allowance), so the identity's `total_allowance` for the package's
   * default service applies, and the figures reported are the binding ones.
   */
  async subscribe(username: string, connection: string, hash: string, identityId: string | null = null): Promise<Subscribed> {
    return this.inLane(username, () => this.engine.command(async (uow) => {
      const account = await existing(uow, username);
      if (account.denied) throw new Forbidden(`Account denied access because of a violation${account.deniedReason ? `: ${account.deniedReason}` : ''}`);
      if (!(await loadFilter(uow, hash))) throw new NotFound(`The hash ${hash} doesn't exist`);
      const line = { key: 'general', limit: account.package.credits_per_hour, cost: STREAM_SUBSCRIBE_COST };
      const h = hash.toLowerCase();
      const subscribed = await uow.execute(streamConnectionsDecider, streamConnectionsStream(username), { type: 'SubscribeStream', connection, hash: h, at: uow.now });
      const seq = subscriptionOf(subscribed.state, connection, h)!.seq;
      const lines = [line, ...(await this.identityLines(uow, account, identityId))];
      if (subscribed.events.length === 0) return { charged: false, rate: bindingFigures(await uow.load(creditsDecider, creditsStream(username)), line, lines, STREAM_SUBSCRIBE_COST, uow.now), seq };
      const { state } = await uow.execute(creditsDecider, creditsStream(username), { type: 'ChargeCredits', at: uow.now, endpoint: 'stream', lines });
      return { charged: true, rate: bindingFigures(state, line, lines, STREAM_SUBSCRIBE_COST, uow.now), seq };
    }));
  }

  private async identityLines(uow: UnitOfWork, account: Account, identityId: string | null): Promise<AllowanceLine[]> {
    const identities = this.engine.identities;
    if (identityId === null || !identities) return [];
    return identities.allowanceLines(uow, account, identityId, SUBSCRIPTION_PRICED_AS, new Params({}), STREAM_SUBSCRIBE_COST);
  }

  async unsubscribe(username: string, connection: string, hash: string): Promise<void> {
    await this.inLane(username, () =>
      this.engine.command((uow) =>
        uow.execute(streamConnectionsDecider, streamConnectionsStream(username), { type: 'UnsubscribeStream', connection, hash: hash.toLowerCase(), at: uow.now }),
      ),
    );
  }

  /**
   * Records interactions delivered (written to their connections) as counts by minute and hash: what
   * `/usage` reports as `licenses`. The transports count them as they write and record them in batches.
   */
  async recordDelivered(username: string, minutes: DeliveredCounts): Promise<void> {
    await this.inLane(username, () =>
      this.engine.command((uow) =>
        uow.execute(streamConnectionsDecider, streamConnectionsStream(username), { type: 'RecordStreamDeliveries', at: uow.now, minutes }),
      ),
    );
  }

  /**
   * Ends the connection and every subscription on it (a repeat is no change). The account's last
   * connection on this host gone, the host's holding of the account is released: a host's holdings stay
   * the accounts it serves now, not every account it ever served, and a sweep after its death is that short.
   */
  async close(username: string, connection: string, reason: string): Promise<void> {
    await this.inLane(username, async () => {
      const { state } = await this.engine.command((uow) =>
        uow.execute(streamConnectionsDecider, streamConnectionsStream(username), { type: 'CloseStreamConnection', connection, at: uow.now, reason }),
      );
      const hosting = this.hosting;
      if (hosting && !connectionHosts(state).includes(hosting.host)) await hosting.liveness.released(hosting.host, username);
    });
  }

  /**
   * The general allowance now, charging nothing (the headers of a stream that subscribes nothing): for an
   * identity's connection, the binding one of the account's and the identity's, as a REST call reads.
   */
  async rate(username: string, identityId: string | null = null): Promise<RateFigures> {
    return this.engine.command(async (uow) => {
      const account = await existing(uow, username);
      const line = { key: 'general', limit: account.package.credits_per_hour, cost: STREAM_SUBSCRIBE_COST };
      const credits = await uow.load(creditsDecider, creditsStream(username));
      return bindingFigures(credits, line, [line, ...(await this.identityLines(uow, account, identityId))], STREAM_SUBSCRIBE_COST, uow.now);
    });
  }
}

async function existing(uow: UnitOfWork, username: string): Promise<Account> {
  const account = await uow.load(accountDecider, accountStream(username));
  if (!account.exists) throw new NotFound(`No account named ${username}`);
  return account;
}
