import { ApiKeyDigests } from '../accounting/api-key.ts';
import type { AccountPackage } from '../accounting/package.ts';
import { endpointById, isEndpointId, type Endpoint } from '../catalogue/endpoints.ts';
import { DomainError } from '../calls/errors.ts';
import type { ApiCall, CallAnswer, EngineServices, EngineSettings, HandlerTable, IdentityAccess } from '../handling/handler.ts';
import { IDEMPOTENCY_KEY_MAX } from '../idempotency/idempotency-keys.ts';
import { AggregateLoader } from '../kernel/aggregates.ts';
import type { EventStore } from '../kernel/event-store.ts';
import { evolvingStore } from '../kernel/evolving-store.ts';
import type { Clock, Ids } from '../kernel/ports.ts';
import { Projections } from '../kernel/projection.ts';
import type { UnitOfWork } from '../kernel/unit-of-work.ts';
import type { Upcasters } from '../kernel/upcasters.ts';
import { defaultWritePolicy, type WritePolicy } from '../kernel/write-policy.ts';
import { RECORDING_INDEX, RecordingIndex } from '../recording-index/recording-index.ts';
import { ANALYSIS_QUERIES, AnalysisQueries } from '../usage/analysis-queries.ts';
import { AttemptLoop, type AttemptCounts, type Decided, type GaveUp, type Judge } from './attempt-loop.ts';
import { CallJudge, type CallServices } from './call-judge.ts';
import { CommonLines } from './rate-figures.ts';
import { OperatorCommands, type AccountView } from './operator-commands.ts';

export { isStoreUnavailable, retryPauseMs, type AttemptCounts } from './attempt-loop.ts';
export { CONFLICT_RETRY_AFTER_S, STORE_RETRY_AFTER_S } from './call-judge.ts';
export { rateLimitStatus } from './rate-figures.ts';
export type { AccountView } from './operator-commands.ts';

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
   * Told, once a call's events are durable and before it answers, the global positions they took:
   * `first` to `last`, one atomic append (a server's request journal). Not told of a call that wrote
   * nothing (a refusal before the charge, a replay).
   */
  onCallWritten?: (call: ApiCall, first: number, last: number) => void;
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
   * How this engine writes: whether its cache is trusted without reading each stream's tail, and whether
   * an account's calls are pipelined (`WRITE_POLICIES`). A server chooses it once from the store's
   * capabilities and its deployment (`chooseWritePolicy`); by default, the one the store's capabilities
   * allow when any process it reaches may write (`defaultWritePolicy`).
   */
  writePolicy?: WritePolicy;
}

const DEFAULT_SETTINGS: EngineSettings = { limitingDay: 'pst', maxAttempts: 10 };

/**
 * The engine: judges a call in the order of docs/contract.md#judgement-order (`CallJudge`) and commits its charge and its
 * effect in one atomic write through the attempt loop (`AttemptLoop`), retrying when another writer got
 * there first; commands outside the call path go through the same loop.
 */
export class Engine implements EngineServices {
  /** The store as the engine reads and writes it (through its event schema): read models read this one. */
  readonly store: EventStore;
  readonly clock: Clock;
  readonly ids: Ids;
  readonly settings: EngineSettings;
  readonly loader: AggregateLoader;
  /** How it writes, chosen once (`EngineOptions.writePolicy`). */
  readonly writePolicy: WritePolicy;
  readonly recordingIndex: RecordingIndex;
  /** Every projection this engine owns, handed to each call (reset with the store). */
  readonly projections: Projections;
  /** What each call's judge is lent (`register` changes its handlers). */
  private readonly services: CallServices;
  private readonly attempts: AttemptLoop;
  private readonly operator: OperatorCommands;

  constructor(options: EngineOptions) {
    this.store = options.upcasters ? evolvingStore(options.store, options.upcasters) : options.store;
    this.clock = options.clock;
    this.ids = options.ids;
    this.settings = { ...DEFAULT_SETTINGS, ...options.settings };
    this.writePolicy = options.writePolicy ?? defaultWritePolicy(options.store.capabilities);
    this.loader = new AggregateLoader(this.store, this.writePolicy);
    this.recordingIndex = options.recordingIndex ?? new RecordingIndex(this.store);
    this.projections = new Projections().with(RECORDING_INDEX, this.recordingIndex).with(ANALYSIS_QUERIES, new AnalysisQueries(this.store));
    this.services = {
      loader: this.loader,
      ids: this.ids,
      settings: this.settings,
      projections: this.projections,
      digests: new ApiKeyDigests(),
      handlers: { ...options.handlers },
      identities: options.identities,
      yieldTurn: options.yieldTurn,
      onError: options.onError,
      onCallWritten: options.onCallWritten,
      keyedCalls: new Set(),
      commonLines: new CommonLines(),
    };
    this.attempts = new AttemptLoop({
      store: this.store,
      loader: this.loader,
      clock: this.clock,
      ids: this.ids,
      settings: this.settings,
      policy: this.writePolicy,
      wait: options.wait,
      onStoreAway: options.onStoreAway,
      onStoreBack: options.onStoreBack,
    });
    this.operator = new OperatorCommands(this);
  }

  get identities(): IdentityAccess | undefined {
    return this.services.identities;
  }

  /** Adds or replaces endpoint handlers (each aggregate's module registers its own). */
  register(handlers: HandlerTable, identities?: IdentityAccess): void {
    Object.assign(this.services.handlers, handlers);
    if (identities) this.services.identities = identities;
  }

  handles(endpointId: string): boolean {
    return endpointId in this.services.handlers;
  }

  /**
   * Judges and answers one call. `endpoint`, when given, is the catalogue's entry for `call.endpoint`,
   * already found by the caller (the HTTP face routes to it), so it is not looked up again. `answer`'s
   * answer, always as a promise.
   */
  call(call: ApiCall, endpoint?: Endpoint): Promise<CallAnswer> {
    let answer: CallAnswer | Promise<CallAnswer>;
    try {
      answer = this.answer(call, endpoint);
    } catch (error) {
      return Promise.reject(error);
    }
    return answer instanceof Promise ? answer : Promise.resolve(answer);
  }

  /**
   * `call`, answered as a value when the call waited on nothing (its states cached, the account's own
   * key, a handler that answers at once, a store that writes within the call: the memory store), else as
   * a promise. For a transport that can answer at once (the HTTP face): the common call then spends no
   * promise and no turn of the microtask queue. A caller that only awaits may use either.
   */
  answer(call: ApiCall, endpoint?: Endpoint): CallAnswer | Promise<CallAnswer> {
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
      const running = this.services.keyedCalls;
      if (running.has(keyed)) return { status: 409, body: { error: `A call with Idempotency-Key ${key} is still running; retry when it has answered` } };
      running.add(keyed);
    }
    return this.attempts.run(new CallJudge(this.services, call, endpoint, keyed));
  }

  /**
   * Runs a command outside the call path (operator, timed work, views) through the same attempt loop as a
   * call: what it read is confirmed current when it writes, and when it refuses (a domain error: "no
   * such account"), the refusal too is confirmed before it is thrown.
   */
  async command<T>(work: (uow: UnitOfWork) => T | Promise<T>): Promise<T> {
    const outcome = await this.attempts.run(new CommandJudge(work));
    if (outcome.refused) throw outcome.refusal;
    return outcome.value;
  }

  /**
   * What this engine's calls and commands met on their way to the store since it started: conflicts with
   * other writers (each a retry, or a 503 after the last attempt), waits for an account's lane.
   */
  attemptCounts(): AttemptCounts {
    return this.attempts.counts();
  }

  // ---- The operator's side (operator-commands.ts), on this engine's services ----

  openAccount(input: { username: string; api_key?: string; package?: unknown }): Promise<{ username: string; api_key: string; package: AccountPackage }> {
    return this.operator.openAccount(input);
  }

  /** A new key for the account (the old one stops working at once); its identities' keys are untouched. */
  replaceApiKey(username: string, apiKey?: string): Promise<{ username: string; api_key: string }> {
    return this.operator.replaceApiKey(username, apiKey);
  }

  changePackage(username: string, fields: unknown): Promise<AccountView> {
    return this.operator.changePackage(username, fields);
  }

  deny(username: string, reason: string): Promise<AccountView> {
    return this.operator.deny(username, reason);
  }

  allow(username: string): Promise<AccountView> {
    return this.operator.allow(username);
  }

  /** What the operator sees of an account, as the loader has it; decides nothing, sends no guards. */
  accountView(username: string): Promise<AccountView> {
    return this.operator.accountView(username);
  }

  /** Empties the store and every cache (the operator's reset). */
  reset(): Promise<void> {
    return this.operator.reset();
  }
}

type CommandOutcome<T> = { refused: false; value: T; refusal?: undefined } | { refused: true; refusal: DomainError; value?: undefined };

/**
 * A command's judge: its work's result is written with every stream it read guarded; a refusal (a domain
 * error) writes nothing and sends the guards; what ends the attempts is thrown to the command's caller.
 */
class CommandJudge<T> implements Judge<CommandOutcome<T>> {
  constructor(private readonly work: (uow: UnitOfWork) => T | Promise<T>) {}

  async judge(uow: UnitOfWork): Promise<Decided<CommandOutcome<T>>> {
    try {
      return { answer: { refused: false, value: await this.work(uow) }, write: true };
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      return { answer: { refused: true, refusal: error }, write: false };
    }
  }

  gaveUp(error: unknown, _why: GaveUp): never {
    throw error;
  }
}
