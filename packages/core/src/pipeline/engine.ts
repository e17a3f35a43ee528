import { accountDecider, accountStream, checkNewAccountFields, isWellFormedApiKey, isWellFormedUsername, type Account } from '../accounting/account.ts';
import { ApiKeyDigests, constantTimeEqual } from '../accounting/api-key.ts';
import { identitiesDecider, identitiesStream } from '../identities/identity.ts';
import {
  creditsDecider,
  creditsStream,
  CreditsExhausted,
  figuresOf,
  windowAt,
  type AllowanceLine,
  type Credits,
  type RateFigures,
} from '../accounting/credit-window.ts';
import { DEFAULT_PACKAGE, readPackageFields, type AccountPackage } from '../accounting/package.ts';
import { endpointById, isEndpointId, type Endpoint } from '../catalogue/endpoints.ts';
import { atLeast, type VersionId } from '../catalogue/versions.ts';
import { AccountLanes } from './account-lanes.ts';
import { admitKey, callFingerprint, heldAt, idempotencyDecider, idempotencyStream, IDEMPOTENCY_KEY_MAX, replayOf } from '../idempotency/idempotency-keys.ts';
import { AggregateLoader } from '../kernel/aggregates.ts';
import { BadRequest, DomainError, NotFound, NotImplemented, Unauthorized } from '../calls/errors.ts';
import { VersionConflict } from '../kernel/version-conflict.ts';
import { checkJsonDepth, prototypeKeyParam } from '../calls/input-limits.ts';
import { StoreUnavailable, type EventStore } from '../kernel/event-store.ts';
import type { StreamAppend } from '../kernel/events.ts';
import type {
  ApiCall,
  CallAnswer,
  CallContext,
  EngineSettings,
  HandlerAnswer,
  HandlerTable,
  IdentityAccess,
} from '../handling/handler.ts';
import { Params } from '../calls/params.ts';
import type { Clock, Ids } from '../kernel/ports.ts';
import { UnitOfWork } from '../kernel/unit-of-work.ts';
import { evolvingStore } from '../kernel/evolving-store.ts';
import type { Upcasters } from '../kernel/upcasters.ts';
import { ANALYSIS_QUERIES, AnalysisQueries } from '../usage/analysis-queries.ts';
import { Projections } from '../kernel/projection.ts';
import { RECORDING_INDEX, RecordingIndex } from '../recording-index/recording-index.ts';

export interface EngineOptions {
  store: EventStore;
  /** The event schema: the engine reads and writes `store` through it (`evolvingStore`). */
  upcasters?: Upcasters;
  clock: Clock;
  ids: Ids;
  handlers?: HandlerTable;
  identities?: IdentityAccess;
  settings?: Partial<EngineSettings>;
  /** Told of every unexpected failure (a 500); the call itself charges nothing. */
  onError?: (error: unknown, call: ApiCall) => void;
  /**
   * Gives other calls a turn of the event loop (a server passes `setImmediate`); the core has no timers.
   * Without it, slices of large work follow each other at once.
   */
  yieldTurn?: () => Promise<void>;
  /**
   * Waits `ms` milliseconds (a server passes a timer): the pause between attempts when another writer
   * moved a stream the call read. Without it, attempts follow each other at once.
   */
  wait?: (ms: number) => Promise<void>;
  /**
   * Told once when the store becomes unreachable (calls answer 503 meanwhile) and once when a call
   * succeeds again: one log line each way, not one per request.
   */
  onStoreAway?: (error: unknown) => void;
  onStoreBack?: () => void;
  /**
   * The recording index this engine's calls read, over the same store; one of its own when absent. An
   * embedder passes one to catch it up before serving, or to read its lag.
   */
  recordingIndex?: RecordingIndex;
  /**
   * Whether this engine is the only writer of its store (default: when the store lives in this process).
   * An account's calls are pipelined, each deciding on the pending writes of the calls before it, when
   * the store checks the last event id a write expects (`EventStore.checksLastEventId`: memory, SQLite,
   * PostgreSQL), or else only for a sole writer: a version number alone cannot tell a pending write lost
   * to another process's write of the same version, so a call decided on top of it could commit. A
   * shared store without that check (an embedder's own) holds the lane until the write is durable.
   * A sole writer's loader also trusts its cache as over the memory store (a write made beside it, by an
   * operator's tool, is still met: by the read guards, which then read it).
   */
  soleWriter?: boolean;
}

const DUMMY_SALT = '0'.repeat(32);
const DUMMY_DIGEST = '0'.repeat(64);

/** Seconds a client is asked to wait while the store is away (`Retry-After`). */
export const STORE_RETRY_AFTER_S = 5;

/** Seconds a client is asked to wait when its call lost every attempt to other writers (`Retry-After`). */
export const CONFLICT_RETRY_AFTER_S = 1;

/**
 * The pause before attempt `attempt + 1`, after `attempt` attempts lost to another writer: up to 1 ms
 * doubling to at most 64 ms, drawn uniformly below that bound ("full jitter"), so writers that collided
 * do not collide again in step. `unit` is a draw in [0, 1) from the ids port (the core has no randomness).
 */
export function retryPauseMs(attempt: number, unit: number): number {
  const bound = Math.min(64, 2 ** (attempt - 1));
  return Math.floor(unit * bound * 1000) / 1000;
}

export interface AccountView {
  username: string;
  package: AccountPackage;
  denied: boolean;
  denied_reason: string | null;
  allowances: Record<'general' | 'analyze', { limit: number; remaining: number; reset: number }>;
}

const DEFAULT_SETTINGS: EngineSettings = { limitingDay: 'pst', maxAttempts: 10 };

/** Rate-limit refusals answer 403 before API 1.2 and 429 from 1.2 (docs/contract.md#versions). */
export const rateLimitStatus = (version: VersionId): number => (atLeast(version, '1.2') ? 429 : 403);

/**
 * The engine: judges a call in the order of docs/contract.md#judgement-order and commits its charge and its effect in one
 * atomic write, retrying when another writer got there first.
 */
export class Engine {
  /** The store as the engine reads and writes it (through its event schema): read models read this one. */
  readonly store: EventStore;
  readonly clock: Clock;
  readonly ids: Ids;
  readonly settings: EngineSettings;
  readonly loader: AggregateLoader;
  readonly recordingIndex: RecordingIndex;
  /** Every projection this engine owns, handed to each call (reset with the store). */
  readonly projections: Projections;
  private handlers: HandlerTable;
  private identities: IdentityAccess | undefined;
  private onError: ((error: unknown, call: ApiCall) => void) | undefined;
  private readonly yieldTurn: (() => Promise<void>) | undefined;
  private readonly wait: ((ms: number) => Promise<void>) | undefined;
  private readonly onStoreAway: ((error: unknown) => void) | undefined;
  private readonly onStoreBack: (() => void) | undefined;
  /** Whether the last call found the store away (so its return is told once). */
  private storeAway = false;
  private readonly digests = new ApiKeyDigests();
  private readonly lanes = new AccountLanes();
  /** See `EngineOptions.soleWriter`. */
  private readonly pipelined: boolean;
  /** Idempotent calls in flight in this process (username, key and idempotency key): a repeat answers 409. */
  private readonly keyedCalls = new Set<string>();

  constructor(options: EngineOptions) {
    this.store = options.upcasters ? evolvingStore(options.store, options.upcasters) : options.store;
    this.clock = options.clock;
    this.ids = options.ids;
    this.settings = { ...DEFAULT_SETTINGS, ...options.settings };
    const soleWriter = options.soleWriter ?? options.store.inProcess === true;
    // Other processes may write a store that checks last event ids, so there the loader reads each tail;
    // the lanes still pipeline (a write decided on a pending state names the event it expects).
    this.pipelined = soleWriter || this.store.checksLastEventId === true;
    // A sole writer's cache is as current as the store, like the memory store's (see AggregateLoader).
    this.loader = new AggregateLoader(this.store, undefined, soleWriter);
    this.recordingIndex = options.recordingIndex ?? new RecordingIndex(this.store);
    this.projections = new Projections().with(RECORDING_INDEX, this.recordingIndex).with(ANALYSIS_QUERIES, new AnalysisQueries(this.store));
    this.handlers = { ...options.handlers };
    this.identities = options.identities;
    this.onError = options.onError;
    this.yieldTurn = options.yieldTurn;
    this.wait = options.wait;
    this.onStoreAway = options.onStoreAway;
    this.onStoreBack = options.onStoreBack;
  }

  /** Adds or replaces endpoint handlers (each aggregate's module registers its own). */
  register(handlers: HandlerTable, identities?: IdentityAccess): void {
    Object.assign(this.handlers, handlers);
    if (identities) this.identities = identities;
  }

  handles(endpointId: string): boolean {
    return endpointId in this.handlers;
  }

  /**
   * Judges and answers one call. `endpoint`, when given, is the catalogue's entry for `call.endpoint`,
   * already found by the caller (the HTTP face routes to it), so it is not looked up again.
   */
  async call(call: ApiCall, endpoint?: Endpoint): Promise<CallAnswer> {
    if (endpoint === undefined) {
      if (!isEndpointId(call.endpoint)) return { status: 404, body: { error: `No endpoint ${call.endpoint}` } };
      endpoint = endpointById(call.endpoint);
    } else if (endpoint.id !== call.endpoint) {
      throw new TypeError(`engine.call: the endpoint given (${endpoint.id}) is not the one the call names (${call.endpoint})`);
    }
    let keyed: string | undefined;
    if (call.idempotencyKey !== undefined && call.credentials) {
      const key = call.idempotencyKey;
      if (key.length === 0 || key.length > IDEMPOTENCY_KEY_MAX) return { status: 400, body: { error: `Idempotency-Key must be 1 to ${IDEMPOTENCY_KEY_MAX} characters` } };
      // The API key is part of the mark, so only the key's holder learns that a call is running.
      keyed = `${call.credentials.username}\n${call.credentials.apiKey}\n${key}`;
      if (this.keyedCalls.has(keyed)) return { status: 409, body: { error: `A call with Idempotency-Key ${key} is still running; retry when it has answered` } };
      this.keyedCalls.add(keyed);
    }
    // The account's lane is entered once the caller has proved who they are, keyed by the account the
    // key opened (so nobody can queue in another account's lane), held while the call decides, and given
    // up as soon as its events are on their way to the store: the next call of the account decides on the
    // state they make, while they become durable.
    const lane: Lane = { lanes: this.lanes, account: undefined };
    try {
      for (let attempt = 1; ; attempt++) {
        try {
          // One attempt, here rather than in a function of its own: an async frame and a turn of the event
          // loop fewer on every call.
          let uow = new UnitOfWork(this.loader, this.ids, this.clock);
          let judged = await this.judge(call, endpoint, uow, lane);
          if (!judged) {
            // The call waited for its lane: what it read before may have moved meanwhile; judge again from
            // authentication on, holding the lane now.
            uow = new UnitOfWork(this.loader, this.ids, this.clock);
            judged = (await this.judge(call, endpoint, uow, lane))!;
          }
          // A refusal writes nothing; it still answers only once the store confirms the states it was
          // decided on (read guards), pending ones included.
          const appends = judged.write ? uow.appends() : uow.guards();
          if (appends.length > 0) {
            // Pipelined: the states go to the cache as pending and the lane is free before the write is
            // durable; this answer waits for its own write (stores acknowledge in the order asked).
            if (judged.write) uow.settlePending();
            const written = this.store.append(appends);
            // Over a shared store the lane is left once the write is settled (in `finally`).
            if (this.pipelined) leaveLane(lane);
            try {
              await written;
            } catch (error) {
              uow.failed();
              throw error;
            }
            if (judged.write) {
              const snapshots = uow.durable();
              if (snapshots) await snapshots;
            }
          }
          if (this.storeAway) this.storeReturned();
          return judged.answer;
        } catch (error) {
          leaveLane(lane);
          if (error instanceof VersionConflict) {
            if (attempt < this.settings.maxAttempts) {
              await this.pause(attempt);
              continue;
            }
            return {
              status: 503,
              body: { error: 'Other writers changed this account while the call was decided; nothing was charged. Retry later.' },
              headers: { 'Retry-After': String(CONFLICT_RETRY_AFTER_S) },
            };
          }
          if (isStoreUnavailable(error)) return this.storeIsAway(error);
          this.onError?.(error, call);
          return { status: 500, body: { error: 'Internal error; nothing was charged' } };
        }
      }
    } finally {
      leaveLane(lane);
      if (keyed !== undefined) this.keyedCalls.delete(keyed);
    }
  }

  /** Waits before the next attempt after `attempt` lost to another writer (through the `wait` port). */
  private pause(attempt: number): Promise<void> | undefined {
    if (!this.wait) return undefined;
    // Eight hex digits from the ids port: a uniform draw in [0, 1).
    return this.wait(retryPauseMs(attempt, parseInt(this.ids.hex(8), 16) / 2 ** 32));
  }

  /** 503 while the store is away; the first such call tells the operator, the others stay quiet. */
  private storeIsAway(error: unknown): CallAnswer {
    if (!this.storeAway) {
      this.storeAway = true;
      this.onStoreAway?.(error);
    }
    return {
      status: 503,
      body: { error: 'The data store is unavailable; nothing was charged. Retry later.' },
      headers: { 'Retry-After': String(STORE_RETRY_AFTER_S) },
    };
  }

  private storeReturned(): void {
    this.storeAway = false;
    this.onStoreBack?.();
  }

  /**
   * docs/contract.md#judgement-order in order, on the states `uow` reads: the answer, and whether the unit's events are
   * written; `undefined` when the call had to wait for its account's lane (the caller judges it again).
   */
  private async judge(call: ApiCall, endpoint: Endpoint, uow: UnitOfWork, lane: Lane): Promise<{ answer: CallAnswer; write: boolean } | undefined> {
    const now = uow.now;
    const params = new Params(call.params ?? {});

    // 4. Authentication
    // Malformed credentials (control characters, over-long) are refused before any store is asked.
    const creds = call.credentials && isWellFormedUsername(call.credentials.username) && isWellFormedApiKey(call.credentials.apiKey) ? call.credentials : undefined;
    // A state the unit holds comes back as a value, and is not awaited: a turn of the event loop per load
    // is a sizeable share of a charged call.
    const accountRead = creds ? uow.load(accountDecider, accountStream(creds.username)) : undefined;
    // A load the cache answers comes back as a value; one that reads the store, as a promise.
    const accountCached = accountRead !== undefined && !(accountRead instanceof Promise);
    const account = accountRead instanceof Promise ? await accountRead : accountRead;
    let identityId: string | null = null;
    let authenticated = false;
    let identitiesCached = false;
    if (creds && account?.exists) {
      const keyHash = this.digests.digest(account.salt, creds.apiKey);
      if (constantTimeEqual(keyHash, account.keyHash)) authenticated = true;
      else if (this.identities) {
        identitiesCached = this.loader.answersFromCache(identitiesDecider, identitiesStream(creds.username));
        identityId = await this.identities.identityForKey(uow, account, keyHash);
        authenticated = identityId !== null;
      }
    } else if (creds) {
      // An unknown username costs the same digest and comparison, so timing does not tell which names exist.
      constantTimeEqual(this.digests.digest(DUMMY_SALT, creds.apiKey), DUMMY_DIGEST);
    }
    if (creds && !authenticated) await this.readsOfARefusal(creds.username, account?.exists === true, accountCached, identitiesCached);
    if (!account || !authenticated) {
      const fresh = windowAt({}, 'general', now);
      const rate = endpoint.allowance === 'none' ? undefined : figuresOf(fresh, DEFAULT_PACKAGE.credits_per_hour, endpoint.cost, now);
      return { answer: errorAnswer(new Unauthorized(), rate), write: false };
    }
    const turn = enterLane(lane, account.username);
    if (turn) {
      await turn;
      return undefined;
    }

    // 5. Denied for a violation
    const creditsAt = creditsStream(account.username);
    const creditsRead = uow.load(creditsDecider, creditsAt);
    const credits = creditsRead instanceof Promise ? await creditsRead : creditsRead;
    const reported = reportedLine(account, endpoint);
    if (account.denied) {
      const denied = new DomainError(403, `Account denied access because of a violation${account.deniedReason ? `: ${account.deniedReason}` : ''}`);
      return { answer: errorAnswer(denied, figuresBefore(credits, reported, endpoint, now)), write: false };
    }

    // An idempotent repeat: the recorded answer, before anything is charged again.
    const idempotencyKey = call.idempotencyKey;
    let fingerprint: string | undefined;
    if (idempotencyKey !== undefined) {
      fingerprint = callFingerprint(call);
      const keys = await uow.load(idempotencyDecider, idempotencyStream(account.username));
      const held = heldAt(keys, idempotencyKey, now);
      if (held && held.fingerprint !== fingerprint) {
        const reused = new DomainError(422, `Idempotency-Key ${idempotencyKey} was used with other parameters; use a new key for a new call`);
        return { answer: errorAnswer(reused, figuresBefore(credits, reported, endpoint, now)), write: false };
      }
      if (held) return { answer: replayOf(held, idempotencyKey), write: false };
      try {
        admitKey(keys, now, account.package.idempotency_keys);
      } catch (error) {
        if (!(error instanceof DomainError)) throw error;
        return { answer: errorAnswer(error, figuresBefore(credits, reported, endpoint, now)), write: false };
      }
    }

    // 6. The allowance
    const lines =
      identityId === null ? accountLines(reported, endpoint) : await this.allowanceLines(uow, account, identityId, endpoint, params);
    let rate = lines.length > 0 ? undefined : figuresBefore(credits, reported, endpoint, now);
    if (lines.length > 0) {
      try {
        const charged = uow.execute(creditsDecider, creditsAt, { type: 'ChargeCredits', at: now, endpoint: endpoint.id, lines });
        const { state } = charged instanceof Promise ? await charged : charged;
        rate = identityId === null ? figuresAfter(state, reported!, endpoint.cost, now) : bindingFigures(state, reported!, lines, endpoint.cost, now);
      } catch (error) {
        if (error instanceof CreditsExhausted) {
          return { answer: { status: rateLimitStatus(call.version), body: { error: error.message }, rate: error.figures }, write: false };
        }
        throw error;
      }
    }

    // 7. Charged; now validate and execute
    const handler = this.handlers[endpoint.id];
    const savepoint = uow.savepoint();
    const ctx: CallContext = { call, version: call.version, endpoint, params, now, ids: this.ids, account, identityId, uow, settings: this.settings, projections: this.projections, yieldTurn: this.yieldTurn };
    let answer: CallAnswer;
    try {
      if (call.unreadable) throw new DomainError(call.unreadable.status, call.unreadable.message);
      // Values that would reach an object's built-ins as keys, or nest past the limit: a 400 of step 7,
      // charged like any other invalid parameter (docs/contract.md#judgement-order), judged before a handler reads them.
      const refused = refusedInput(call.params);
      if (refused) throw refused;
      if (!handler) throw new NotImplemented(`${endpoint.path} (${endpoint.id})`);
      // An embedder's handler may answer with any thenable, not only a native promise.
      const result = handler(ctx);
      const out = typeof (result as Partial<PromiseLike<HandlerAnswer>>).then === 'function' ? await result : (result as HandlerAnswer);
      const status = out.status ?? endpoint.success[0]!;
      answer = { status };
      if (status !== 204) answer.body = out.body ?? {};
      if (rate) answer.rate = rate;
      if (out.headers) answer.headers = out.headers;
    } catch (error) {
      if (!(error instanceof DomainError)) {
        // Another writer or the store going away is the attempt loop's to answer; any other failure is
        // a 500 that charges nothing (docs/contract.md#judgement-order) and still reports the figures, as every answer from
        // authentication on does.
        if (error instanceof VersionConflict || isStoreUnavailable(error)) throw error;
        this.onError?.(error, call);
        return { answer: { status: 500, body: { error: 'Internal error; nothing was charged' }, ...withRate(figuresBefore(credits, reported, endpoint, now)) }, write: false };
      }
      if (error.status >= 500) return { answer: errorAnswer(error, figuresBefore(credits, reported, endpoint, now)), write: false };
      uow.rollbackTo(savepoint);
      answer = errorAnswer(error, rate, call.version);
    }
    if (idempotencyKey !== undefined) {
      await uow.execute(idempotencyDecider, idempotencyStream(account.username), { type: 'RecordIdempotentCall', key: idempotencyKey, fingerprint: fingerprint!, at: now, answer, holdLimit: account.package.idempotency_keys });
    }
    return { answer, write: true };
  }

  /**
   * A refused credential makes the same store reads whether its username exists or not, and whether its
   * account was cached: those of an account and an identity list read from the store (a cached state
   * answers at once, a name nobody has must be read), so the time of a 401 does not tell which usernames
   * exist. An unknown name's empty state is not kept, so probing names grows no cache either.
   */
  private async readsOfARefusal(username: string, exists: boolean, accountCached: boolean, identitiesCached: boolean): Promise<void> {
    const account = accountStream(username);
    if (!exists) this.loader.forgetStream(accountDecider, account);
    // A shared store is read on every load (the tail, or all of an unknown stream): the two paths already
    // read alike. A sole writer's cache answers a known account at once, where an unknown name is read.
    if (!this.loader.answersFromMemory) return;
    if (accountCached) await this.loader.readAsIfMissed(accountDecider, account);
    if (this.identities && (!exists || identitiesCached)) await this.loader.readAsIfMissed(identitiesDecider, identitiesStream(username));
  }

  /** An identity's calls also draw from that identity's narrower allowances. */
  private async allowanceLines(uow: UnitOfWork, account: Account, identityId: string, endpoint: Endpoint, params: Params): Promise<AllowanceLine[]> {
    const lines = accountLines(reportedLine(account, endpoint), endpoint);
    if (lines.length > 0 && this.identities) {
      lines.push(...(await this.identities.allowanceLines(uow, account, identityId, endpoint, params, endpoint.cost)));
    }
    return lines;
  }

  // ---- The operator's side: accounts, packages, denial, stream-product charges, reset ----

  async openAccount(input: { username: string; api_key?: string; package?: unknown }): Promise<{ username: string; api_key: string; package: AccountPackage }> {
    // Refused before the store is read, as a list of accounts is checked before any is opened.
    const fields = checkNewAccountFields(input);
    const apiKey = input.api_key ?? this.ids.hex(32);
    const account = await this.command(async (uow) =>
      (await uow.execute(accountDecider, accountStream(input.username), {
        type: 'OpenAccount',
        username: input.username,
        apiKey,
        salt: this.ids.hex(16),
        package: fields,
        at: uow.now,
      })).state,
    );
    return { username: account.username, api_key: apiKey, package: account.package };
  }

  /** A new key for the account (the old one stops working at once); its identities' keys are untouched. */
  async replaceApiKey(username: string, apiKey: string = this.ids.hex(32)): Promise<{ username: string; api_key: string }> {
    await this.command((uow) => uow.execute(accountDecider, accountStream(username), { type: 'ReplaceApiKey', apiKey }));
    return { username, api_key: apiKey };
  }

  async changePackage(username: string, fields: unknown): Promise<AccountView> {
    knownShape(username);
    const parsed = readPackageFields(fields);
    await this.command((uow) => uow.execute(accountDecider, accountStream(username), { type: 'ChangePackage', fields: parsed }));
    return this.accountView(username);
  }

  async deny(username: string, reason: string): Promise<AccountView> {
    knownShape(username);
    await this.command((uow) => uow.execute(accountDecider, accountStream(username), { type: 'DenyAccount', reason }));
    return this.accountView(username);
  }

  async allow(username: string): Promise<AccountView> {
    knownShape(username);
    await this.command((uow) => uow.execute(accountDecider, accountStream(username), { type: 'AllowAccount' }));
    return this.accountView(username);
  }

  /** The stream product's usage, sharing the general allowance (docs/contract.md#hourly-allowances). Throws CreditsExhausted. */
  async chargeStream(username: string, cost: number): Promise<RateFigures> {
    return this.command(async (uow) => {
      const account = await this.existing(uow, username);
      const line = { key: 'general', limit: account.package.credits_per_hour, cost };
      const { state } = await uow.execute(creditsDecider, creditsStream(username), { type: 'ChargeCredits', at: uow.now, endpoint: 'stream', lines: [line] });
      return figuresAfter(state, line, cost, uow.now);
    });
  }

  /**
   * What the operator sees of an account: read as the loader has it (over a store other processes share,
   * each load reads the tail, so it is as fresh as a read can be). A view decides nothing, so it sends no
   * guards: checking them against a busy account's credit stream would only keep it retrying.
   */
  async accountView(username: string): Promise<AccountView> {
    const uow = new UnitOfWork(this.loader, this.ids, this.clock);
    const account = await this.existing(uow, username);
    const credits = await uow.load(creditsDecider, creditsStream(username));
    const view = (key: string, limit: number) => {
      const f = figuresOf(windowAt(credits, key, uow.now), limit, 0, uow.now);
      return { limit: f.limit, remaining: f.remaining, reset: f.reset };
    };
    return {
      username: account.username,
      package: account.package,
      denied: account.denied,
      denied_reason: account.deniedReason,
      allowances: {
        general: view('general', account.package.credits_per_hour),
        analyze: view('analyze', account.package.analyze_credits_per_hour),
      },
    };
  }

  /** Empties the store and every cache (the operator's reset). */
  async reset(): Promise<void> {
    await this.store.clear();
    this.loader.clear();
    for (const projection of this.projections) projection.reset();
  }

  /**
   * Runs a command outside the call path (operator, timed work, views) with the same atomic write, read
   * guards and retries as a call: what it read is confirmed current when it writes, and when it refuses
   * (a domain error: "no such account"), the refusal too is confirmed before it is thrown.
   */
  async command<T>(work: (uow: UnitOfWork) => T | Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      const uow = new UnitOfWork(this.loader, this.ids, this.clock);
      try {
        let result: T;
        try {
          result = await work(uow);
        } catch (error) {
          if (!(error instanceof DomainError)) throw error;
          const guards = uow.guards();
          if (guards.length > 0) await this.written(uow, guards);
          throw error;
        }
        const appends = uow.appends();
        if (appends.length > 0) {
          await this.written(uow, appends);
          const snapshots = uow.settle();
          if (snapshots) await snapshots;
        }
        return result;
      } catch (error) {
        if (error instanceof VersionConflict && attempt < this.settings.maxAttempts) {
          await this.pause(attempt);
          continue;
        }
        throw error;
      }
    }
  }

  /** The store's append; when it fails, the unit's states leave the cache (or are caught up next time). */
  private async written(uow: UnitOfWork, appends: StreamAppend[]): Promise<void> {
    try {
      await this.store.append(appends);
    } catch (error) {
      uow.failed();
      throw error;
    }
  }

  private async existing(uow: UnitOfWork, username: string): Promise<Account> {
    knownShape(username);
    const account = await uow.load(accountDecider, accountStream(username));
    if (!account.exists) throw new NotFound(`No account named ${username}`);
    return account;
  }
}

/** The allowance a response reports: the one its endpoint draws from (task create reports the general one). */
function reportedLine(account: Account, endpoint: Endpoint): AllowanceLine | undefined {
  switch (endpoint.allowance) {
    case 'general':
    case 'task-slots':
      return { key: 'general', limit: account.package.credits_per_hour, cost: endpoint.cost };
    case 'analyze':
      return { key: 'analyze', limit: account.package.analyze_credits_per_hour, cost: endpoint.cost };
    case 'none':
      return undefined;
  }
}

/** The lines a call made with the account's own key draws from (`main`: its reported line). */
function accountLines(main: AllowanceLine | undefined, endpoint: Endpoint): AllowanceLine[] {
  return !main || endpoint.allowance === 'task-slots' ? [] : [main];
}

/** The figures before any charge: what a denial, a refusal before charging or a 5xx reports. */
function figuresBefore(credits: Credits, reported: AllowanceLine | undefined, endpoint: Endpoint, now: number): RateFigures | undefined {
  return reported ? figuresOf(windowAt(credits, reported.key, now), reported.limit, endpoint.cost, now) : undefined;
}

function figuresAfter(credits: Credits, line: AllowanceLine, cost: number, now: number): RateFigures {
  return figuresOf(windowAt(credits, line.key, now), line.limit, cost, now);
}

/**
 * The figures of the allowance that binds an identity's call (docs/contract.md#hourly-allowances: its limit narrows the
 * account's): of the lines counted in credits like the reported one, the one with the least left, the
 * narrower on a tie. So a client reading the headers sees the identity's limit coming, not a sudden 429.
 * (`analyze_queries` counts queries, not credits: analyze calls report the account's analyze figures.)
 */
function bindingFigures(credits: Credits, reported: AllowanceLine, lines: readonly AllowanceLine[], cost: number, now: number): RateFigures {
  let binding = figuresAfter(credits, reported, cost, now);
  if (reported.key !== 'general') return binding;
  for (const line of lines) {
    if (line.key === reported.key || !line.key.endsWith(':general')) continue;
    const f = figuresAfter(credits, line, cost, now);
    if (f.remaining < binding.remaining || (f.remaining === binding.remaining && f.limit < binding.limit)) binding = f;
  }
  return binding;
}

/** A name outside the username character set names no account: 404 before any store is asked. */
function knownShape(username: string): void {
  if (!isWellFormedUsername(username)) throw new NotFound(`No account named ${JSON.stringify(username)}`);
}

/** The core's class, or an adapter's own error of that name (a second copy of the core in a bundle). */
export function isStoreUnavailable(error: unknown): boolean {
  return error instanceof StoreUnavailable || (error instanceof Error && error.name === 'StoreUnavailable');
}

function refusedInput(params: Record<string, unknown> | undefined): BadRequest | undefined {
  if (!params) return undefined;
  const key = prototypeKeyParam(params);
  if (key) return new BadRequest(`${key.name} cannot be ${JSON.stringify(key.value)}: that name is reserved`);
  for (const name in params) {
    const v = params[name];
    if (typeof v !== 'object' || v === null) continue;
    try {
      checkJsonDepth(name, v);
    } catch (error) {
      if (error instanceof BadRequest) return error;
      throw error;
    }
  }
  return undefined;
}

/** The lane a call holds, if any: entered after authentication, left once its write is on its way. */
interface Lane {
  lanes: AccountLanes;
  account: string | undefined;
}

function enterLane(lane: Lane, account: string): Promise<void> | undefined {
  if (lane.account !== undefined) return undefined;
  lane.account = account;
  return lane.lanes.enter(account);
}

function leaveLane(lane: Lane): void {
  if (lane.account === undefined) return;
  lane.lanes.leave(lane.account);
  lane.account = undefined;
}

const withRate = (rate: RateFigures | undefined): { rate?: RateFigures } => (rate ? { rate } : {});

function errorAnswer(error: DomainError, rate?: RateFigures, version?: VersionId): CallAnswer {
  const status = error.status === 429 && version ? rateLimitStatus(version) : error.status;
  const headers = error instanceof DomainError && 'allow' in error ? { Allow: (error as unknown as { allow: string[] }).allow.join(', ') } : undefined;
  return { status, body: { error: error.message, ...error.extra }, ...(rate ? { rate } : {}), ...(headers ? { headers } : {}) };
}
