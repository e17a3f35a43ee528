import type { Account } from '../accounting/account.ts';
import type { AccountPackage } from '../accounting/package.ts';
import type { AllowanceLine, RateFigures } from '../accounting/credit-window.ts';
import type { Endpoint, EndpointId } from '../catalogue/endpoints.ts';
import type { VersionId } from '../catalogue/versions.ts';
import type { LimitingDayMode } from '../days/limiting-day.ts';
import type { Params } from '../calls/params.ts';
import type { Clock, Ids } from '../kernel/ports.ts';
import type { UnitOfWork } from '../kernel/unit-of-work.ts';
import type { Projections } from '../kernel/projection.ts';

/** A transport-neutral call: what the HTTP face, the simulator and embedders hand to the engine. */
export interface ApiCall {
  version: VersionId;
  /** A catalogue id, e.g. `core.validate` (`isEndpointId` checks one read at run time). */
  endpoint: EndpointId;
  credentials?: { username: string; apiKey: string } | undefined;
  /** Parameters merged from the path, query string and body. */
  params?: Record<string, unknown>;
  /** The request's media type (`application/json`, ...), where it matters (task create: 415). */
  mediaType?: string | undefined;
  /** The raw body, for endpoints that take one as it is (ingestion). */
  body?: string | undefined;
  /** `Idempotency-Key` of a POST, PUT or DELETE: executed and charged once per account and key. */
  idempotencyKey?: string | undefined;
  /**
   * The request's body could not be read into parameters (over the size limit, not UTF-8, not JSON, a
   * media type no endpoint reads): the face says so here, and the call is judged as any other through
   * the allowance, then answered with this at step 7, charged (docs/contract.md#judgement-order).
   */
  unreadable?: { status: 400 | 413 | 415; message: string } | undefined;
  /**
   * For an endpoint whose catalogue `caller` is `connection` (a stream action of an open connection):
   * the account and the connection the judge admitted when it was opened. The wire never sets it.
   */
  connection?: { username: string; id?: string | undefined } | undefined;
  /**
   * For an endpoint whose catalogue `caller` is `operator`: the account the operator acts on. The
   * operator is no tenant and holds no key of the account; its authority is the admin token, which the
   * operator API checks before it builds such a call, or the engine itself in an embedder's hands (which
   * opens, denies and resets accounts already). So the judge admits the call on the endpoint's caller
   * alone. The wire never sets it, and no routed endpoint reads it.
   */
  operator?: { username: string } | undefined;
}

/**
 * The engine's answer: what the HTTP face encodes. `body` is absent for 204; a string body is sent as it
 * is (already encoded, e.g. a json_new_line pull page), anything else as JSON.
 */
export interface CallAnswer {
  status: number;
  body?: unknown;
  /** The five rate-limit figures, on every answer from authentication on. */
  rate?: RateFigures;
  headers?: Record<string, string>;
}


export interface EngineSettings {
  limitingDay: LimitingDayMode;
  /** Attempts when another writer moved a stream between read and write. */
  maxAttempts: number;
}

/** Everything an endpoint's handler may use: no clock, no randomness, no I/O but the unit of work. */
export interface CallContext {
  call: ApiCall;
  version: VersionId;
  endpoint: Endpoint;
  params: Params;
  now: number;
  ids: Ids;
  account: Account;
  /** The identity whose API key made the call; `null` for the account's own key. */
  identityId: string | null;
  uow: UnitOfWork;
  settings: EngineSettings;
  /** The engine's projections (the recording index: `recordingIndexOf(ctx)`). */
  projections: Projections;
  /**
   * Lets other calls run before this one goes on: large work (a big ingestion batch) is done in slices
   * with a turn between, so one tenant's request never holds the process for long. The engine's
   * `yieldTurn` port; absent in tests that build a context by hand.
   */
  yieldTurn?: (() => Promise<void>) | undefined;
}

export interface HandlerAnswer {
  status?: number;
  body?: unknown;
  headers?: Record<string, string>;
  /**
   * For an endpoint charged `on-effect`: `false` when the call changed nothing (a repeated subscription),
   * so its charge is given back.
   */
  effect?: boolean;
}

export type Handler = (ctx: CallContext) => Promise<HandlerAnswer> | HandlerAnswer;
/** Handlers by catalogue id: a table may hold any subset; a misspelt id does not compile. */
export type HandlerTable = { [Id in EndpointId]?: Handler };

/**
 * How identities take part in a call (built by the identities aggregate): which identity a key belongs
 * to, and which narrower allowances that identity's calls also draw from.
 */
export interface IdentityAccess {
  identityForKey(uow: UnitOfWork, account: Account, keyHash: string): Promise<string | null>;
  allowanceLines(
    uow: UnitOfWork,
    account: Account,
    identityId: string,
    endpoint: Endpoint,
    params: Params,
    cost: number,
  ): Promise<AllowanceLine[]>;
}

export type { AccountPackage, LimitingDayMode };

/**
 * The engine as the services beside the call path see it (feeding the firehose, delivering pushes,
 * injecting faults): they run commands on the engine's store and register handlers, from a floor below
 * the pipeline, so they name this contract rather than the engine itself.
 */
export interface EngineServices {
  readonly clock: Clock;
  readonly ids: Ids;
  readonly settings: EngineSettings;
  /** The read models the engine owns (the recording index), as handlers see them in their context. */
  readonly projections: Projections;
  /** How identities' keys take part (absent on an engine without identities: only account keys open anything). */
  readonly identities?: IdentityAccess | undefined;
  command<T>(work: (uow: UnitOfWork) => T | Promise<T>): Promise<T>;
  register(handlers: HandlerTable, identities?: IdentityAccess): void;
}
