import { accountDecider, accountStream, isWellFormedApiKey, isWellFormedUsername, type Account } from '../accounting/account.ts';
import { constantTimeEqual, type ApiKeyDigests } from '../accounting/api-key.ts';
import { creditsDecider, creditsStream, CreditsExhausted, figuresOf, windowAt, type AllowanceLine, type Credits, type RateFigures } from '../accounting/credit-window.ts';
import { DEFAULT_PACKAGE } from '../accounting/package.ts';
import type { Endpoint } from '../catalogue/endpoints.ts';
import { BadRequest, DomainError, NotFound, NotImplemented, Unauthorized } from '../calls/errors.ts';
import { checkJsonDepth, prototypeKeyParam } from '../calls/input-limits.ts';
import { Params } from '../calls/params.ts';
import { termsOf } from '../contract/contract.ts';
import { readParams } from '../contract/read.ts';
import type { ApiCall, CallAnswer, CallContext, EngineSettings, HandlerAnswer, HandlerTable, IdentityAccess } from '../handling/handler.ts';
import { admitKey, callFingerprint, heldAt, idempotencyDecider, idempotencyStream, replayOf } from '../idempotency/idempotency-keys.ts';
import { identitiesDecider, identitiesStream } from '../identities/identity.ts';
import type { AggregateLoader } from '../kernel/aggregates.ts';
import type { AppendResult, StreamAppend } from '../kernel/events.ts';
import type { Ids } from '../kernel/ports.ts';
import type { Projections } from '../kernel/projection.ts';
import type { UnitOfWork } from '../kernel/unit-of-work.ts';
import { VersionConflict } from '../kernel/version-conflict.ts';
import { isStoreUnavailable, type Decided, type GaveUp, type Judge, type LaneHold, type Verdict } from './attempt-loop.ts';
import { accountLines, bindingFigures, CommonLines, errorAnswer, figuresAfter, figuresBefore, figuresUncharged, rateLimitStatus, reportedLine, withRate } from './rate-figures.ts';

const DUMMY_SALT = '0'.repeat(32);
const DUMMY_DIGEST = '0'.repeat(64);

/** Seconds a client is asked to wait while the store is away (`Retry-After`). */
export const STORE_RETRY_AFTER_S = 5;

/** Seconds a client is asked to wait when its call lost every attempt to other writers (`Retry-After`). */
export const CONFLICT_RETRY_AFTER_S = 1;

/** What the engine lends the judge of each call (one per engine; `register` changes the handlers). */
export interface CallServices {
  readonly loader: AggregateLoader;
  readonly ids: Ids;
  readonly settings: EngineSettings;
  readonly projections: Projections;
  readonly digests: ApiKeyDigests;
  handlers: HandlerTable;
  identities: IdentityAccess | undefined;
  readonly yieldTurn: (() => Promise<void>) | undefined;
  readonly onError: ((error: unknown, call: ApiCall) => void) | undefined;
  /** See `EngineOptions.onCallWritten`. */
  readonly onCallWritten: ((call: ApiCall, first: number, last: number) => void) | undefined;
  /** Idempotent calls in flight in this process (username, key and idempotency key): a repeat answers 409. */
  readonly keyedCalls: Set<string>;
  /** The common call's allowance lines, kept while the account's package and the endpoint repeat. */
  readonly commonLines: CommonLines;
}

/**
 * One API call's judge, handed to the attempt loop by `Engine.call`: docs/contract.md#judgement-order in order on the states
 * each attempt's unit reads (steps 1-3, version, path and method, were resolved before the engine). It
 * answers every refusal itself (with the read guards the loop sends); what ends the attempts (every one
 * lost to another writer, the store away, an unexpected failure) it answers in `gaveUp`.
 */
export class CallJudge implements Judge<CallAnswer> {
  constructor(
    private readonly s: CallServices,
    private readonly call: ApiCall,
    private readonly endpoint: Endpoint,
    /** This call's mark in `keyedCalls`, taken by the engine, given back in `done`. */
    private readonly keyed: string | undefined,
  ) {}

  gaveUp(error: unknown, why: GaveUp): CallAnswer {
    switch (why) {
      case 'conflicts':
        return {
          status: 503,
          body: { error: 'Other writers changed this account while the call was decided; nothing was charged. Retry later.' },
          headers: { 'Retry-After': String(CONFLICT_RETRY_AFTER_S) },
        };
      case 'store-away':
        return {
          status: 503,
          body: { error: 'The data store is unavailable; nothing was charged. Retry later.' },
          headers: { 'Retry-After': String(STORE_RETRY_AFTER_S) },
        };
      case 'failure':
        this.s.onError?.(error, this.call);
        return { status: 500, body: { error: 'Internal error; nothing was charged' } };
    }
  }

  done(): void {
    if (this.keyed !== undefined) this.s.keyedCalls.delete(this.keyed);
  }

  wrote(batch: readonly StreamAppend[], result: AppendResult): void {
    const told = this.s.onCallWritten;
    if (told === undefined) return;
    let count = 0;
    for (const append of batch) count += append.events.length;
    if (count === 0) return;
    try {
      // One atomic append takes consecutive positions, its last at `lastPosition`.
      told(this.call, result.lastPosition - count + 1, result.lastPosition);
    } catch {
      // A tracer's failure is its own: the call is written and answers as it would have.
    }
  }

  /**
   * docs/contract.md#judgement-order in order, on the states `uow` reads: the answer, and whether the unit's events are
   * written; or the queue for the account's lane when another call of the account holds it. A value when
   * every step could answer at once (the states cached, the account's own key, no Idempotency-Key, a
   * handler that answers at once), else a promise: each step hands on to the next as a value, and waits
   * only on a step that answered with a promise. An async function here cost every call its promise and
   * a turn of the microtask queue, about as much as a step of its own.
   */
  judge(uow: UnitOfWork, lane: LaneHold): Verdict<CallAnswer> | Promise<Verdict<CallAnswer>> {
    const { call, endpoint } = this;
    const params = new Params(call.params ?? {});
    if (endpoint.caller !== 'key') return endpoint.caller === 'connection' ? this.connectionAction(uow, lane, params) : this.operatorAction(uow, lane, params);

    // 4. Authentication
    // Malformed credentials (control characters, over-long) are refused before any store is asked.
    const creds = call.credentials && isWellFormedUsername(call.credentials.username) && isWellFormedApiKey(call.credentials.apiKey) ? call.credentials : undefined;
    if (creds === undefined) return this.notAuthenticated(uow, lane, params, undefined, undefined, false);
    // A state the unit holds comes back as a value, and is not awaited; one that reads the store, as a promise.
    const accountRead = uow.load(accountDecider, accountStream(creds.username));
    if (accountRead instanceof Promise) return accountRead.then((account) => this.authenticate(uow, lane, params, creds, account, false));
    return this.authenticate(uow, lane, params, creds, accountRead, true);
  }

  /** Step 4 on the account read: its own key admits at once; an identity's key, or a refusal, is `notAuthenticated`'s. */
  private authenticate(uow: UnitOfWork, lane: LaneHold, params: Params, creds: Credentials, account: Account, accountCached: boolean): Verdict<CallAnswer> | Promise<Verdict<CallAnswer>> {
    if (!account.exists) return this.notAuthenticated(uow, lane, params, creds, account, accountCached);
    const keyHash = this.s.digests.digest(account.salt, creds.apiKey);
    if (constantTimeEqual(keyHash, account.keyHash)) return this.admitted(uow, lane, params, account, null);
    return this.notAuthenticated(uow, lane, params, creds, account, accountCached, keyHash);
  }

  /**
   * Step 4 when the account's own key did not open it: one of its identities' keys (`keyHash`), or a 401
   * after the same store reads whether the username exists or not (`readsOfARefusal`).
   */
  private async notAuthenticated(
    uow: UnitOfWork,
    lane: LaneHold,
    params: Params,
    creds: Credentials | undefined,
    account: Account | undefined,
    accountCached: boolean,
    keyHash?: string,
  ): Promise<Verdict<CallAnswer>> {
    const { endpoint, s } = this;
    let identitiesCached = false;
    if (creds && account?.exists) {
      if (keyHash !== undefined && s.identities) {
        identitiesCached = s.loader.answersFromCache(identitiesDecider, identitiesStream(creds.username));
        const identityId = await s.identities.identityForKey(uow, account, keyHash);
        if (identityId !== null) return this.admitted(uow, lane, params, account, identityId);
      }
    } else if (creds) {
      // An unknown username costs the same digest and comparison, so timing does not tell which names exist.
      constantTimeEqual(s.digests.digest(DUMMY_SALT, creds.apiKey), DUMMY_DIGEST);
    }
    if (creds) await readsOfARefusal(s, creds.username, account?.exists === true, accountCached, identitiesCached);
    const now = uow.now;
    const fresh = windowAt({}, 'general', now);
    // Cost 0: nothing is charged, and the headers say what was charged (a client reads cost > remaining as a rate limit).
    const rate = endpoint.allowance === 'none' ? undefined : figuresOf(fresh, DEFAULT_PACKAGE.credits_per_hour, 0, now);
    return { answer: errorAnswer(new Unauthorized(), rate), write: false };
  }

  /** Authenticated (by the account's key, or an identity's: `identityId`): the lane, then step 5 on the credits read. */
  private admitted(uow: UnitOfWork, lane: LaneHold, params: Params, account: Account, identityId: string | null): Verdict<CallAnswer> | Promise<Verdict<CallAnswer>> {
    // Queued behind the account's other calls: the loop waits for the turn and asks again from step 4.
    const queued = lane.enter(account.username);
    if (queued) return queued;
    const creditsRead = uow.load(creditsDecider, creditsStream(account.username));
    if (creditsRead instanceof Promise) return creditsRead.then((credits) => this.allowance(uow, account, identityId, params, credits));
    return this.allowance(uow, account, identityId, params, creditsRead);
  }

  /**
   * Steps 5 to 7 for a call of the account's own key, without an Idempotency-Key, charged per call (the
   * common call): a value when the charge and the handler answer at once. Any other call is `allowanceLater`'s.
   */
  private allowance(uow: UnitOfWork, account: Account, identityId: string | null, params: Params, credits: Credits): Verdict<CallAnswer> | Promise<Verdict<CallAnswer>> {
    const { call, endpoint } = this;
    const now = uow.now;
    const common = this.s.commonLines.of(account, endpoint);
    const reported = common.reported;
    // 5. Denied for a violation
    if (account.denied) {
      const denied = new DomainError(403, `Account denied access because of a violation${account.deniedReason ? `: ${account.deniedReason}` : ''}`);
      return { answer: errorAnswer(denied, figuresUncharged(credits, reported, now)), write: false };
    }
    if (identityId !== null || call.idempotencyKey !== undefined || endpoint.charged === 'on-effect') return this.allowanceLater(uow, account, identityId, params, credits, reported);
    // 6. The allowance
    const lines = common.lines;
    if (lines.length === 0) return this.verdictOf(this.execute(uow, account, null, params, figuresBefore(credits, reported, endpoint, now), credits, reported, undefined), credits, reported, now);
    let charged: ReturnType<UnitOfWork['execute']>;
    try {
      charged = uow.execute(creditsDecider, creditsStream(account.username), { type: 'ChargeCredits', at: now, endpoint: endpoint.id, lines });
    } catch (error) {
      return this.exhausted(error);
    }
    if (charged instanceof Promise) {
      return charged.then(
        ({ state }) => this.verdictOf(this.execute(uow, account, null, params, figuresAfter(state as Credits, reported!, endpoint.cost, now), credits, reported, undefined), credits, reported, now),
        (error: unknown) => this.exhausted(error),
      );
    }
    // 7. Charged; now validate and execute.
    const rate = figuresAfter(charged.state as Credits, reported!, endpoint.cost, now);
    return this.verdictOf(this.execute(uow, account, null, params, rate, credits, reported, undefined), credits, reported, now);
  }

  /** Steps 5 to 7 of a call with an Idempotency-Key, by an identity's key, or charged on effect (see `allowance`). */
  private async allowanceLater(uow: UnitOfWork, account: Account, identityId: string | null, params: Params, credits: Credits, reported: AllowanceLine | undefined): Promise<Verdict<CallAnswer>> {
    const { call, endpoint, s } = this;
    const now = uow.now;
    // An idempotent repeat: the recorded answer, before anything is charged again.
    const idempotencyKey = call.idempotencyKey;
    let fingerprint: string | undefined;
    if (idempotencyKey !== undefined) {
      fingerprint = callFingerprint(call);
      const keys = await uow.load(idempotencyDecider, idempotencyStream(account.username));
      const held = heldAt(keys, idempotencyKey, now);
      if (held && held.fingerprint !== fingerprint) {
        const reused = new DomainError(422, `Idempotency-Key ${idempotencyKey} was used with other parameters; use a new key for a new call`);
        return { answer: errorAnswer(reused, figuresUncharged(credits, reported, now)), write: false };
      }
      if (held) return { answer: replayOf(held, idempotencyKey), write: false };
      try {
        admitKey(keys, now, account.package.idempotency_keys);
      } catch (error) {
        if (!(error instanceof DomainError)) throw error;
        return { answer: errorAnswer(error, figuresUncharged(credits, reported, now)), write: false };
      }
    }

    // 6. The allowance
    const lines =
      identityId === null ? accountLines(reported, endpoint) : await allowanceLines(s, uow, account, identityId, endpoint, params);
    let rate = lines.length > 0 ? undefined : figuresBefore(credits, reported, endpoint, now);
    // Draws nothing, but reports what binds the key: an identity's narrower allowance, as its calls read it.
    if (endpoint.allowance === 'reports-general' && identityId !== null && reported && s.identities) {
      const narrower = await s.identities.allowanceLines(uow, account, identityId, { ...endpoint, allowance: 'general' }, params, endpoint.cost);
      if (narrower.length > 0) rate = bindingFigures(credits, reported, [reported, ...narrower], endpoint.cost, now);
    }
    if (endpoint.charged === 'on-effect') return this.chargedOnEffect(uow, account, identityId, params, credits, reported, lines);
    if (lines.length > 0) {
      try {
        const charged = uow.execute(creditsDecider, creditsStream(account.username), { type: 'ChargeCredits', at: now, endpoint: endpoint.id, lines });
        const { state } = charged instanceof Promise ? await charged : charged;
        rate = identityId === null ? figuresAfter(state, reported!, endpoint.cost, now) : bindingFigures(state, reported!, lines, endpoint.cost, now);
      } catch (error) {
        return this.exhausted(error);
      }
    }

    // 7. Charged; now validate and execute. A handler that answers at once is not awaited.
    const executed = this.execute(uow, account, identityId, params, rate, credits, reported, undefined);
    const outcome = this.verdictOf(executed instanceof Promise ? await executed : executed, credits, reported, now);
    if (idempotencyKey !== undefined && outcome.write) {
      await uow.execute(idempotencyDecider, idempotencyStream(account.username), { type: 'RecordIdempotentCall', key: idempotencyKey, fingerprint: fingerprint!, at: now, answer: outcome.answer, holdLimit: account.package.idempotency_keys });
    }
    return outcome;
  }

  /** A charge the allowance cannot pay: 429 (403 before API 1.2) with its figures; any other error goes on. */
  private exhausted(error: unknown): Decided<CallAnswer> {
    if (error instanceof CreditsExhausted) return { answer: { status: rateLimitStatus(this.call.version), body: { error: error.message }, rate: error.figures }, write: false };
    throw error;
  }

  /** Step 7's outcome as the verdict: a 500 for an unexpected failure (nothing charged), a refusal that writes nothing, or the answer, written. */
  private verdictOf(executed: Executed, credits: Credits, reported: AllowanceLine | undefined, now: number): Decided<CallAnswer>;
  private verdictOf(executed: Executed | Promise<Executed>, credits: Credits, reported: AllowanceLine | undefined, now: number): Decided<CallAnswer> | Promise<Decided<CallAnswer>>;
  private verdictOf(executed: Executed | Promise<Executed>, credits: Credits, reported: AllowanceLine | undefined, now: number): Decided<CallAnswer> | Promise<Decided<CallAnswer>> {
    if (executed instanceof Promise) return executed.then((answer) => this.verdictOf(answer, credits, reported, now));
    if (executed === undefined) return { answer: { status: 500, body: { error: 'Internal error; nothing was charged' }, ...withRate(figuresUncharged(credits, reported, now)) }, write: false };
    if ('refused' in executed) return { answer: executed.refused, write: false };
    return { answer: executed, write: true };
  }

  /**
   * An action of a stream connection the judge admitted when it was opened (`caller: 'connection'`): the
   * account must exist; it takes the account's lane as every call does, charges nothing, and is not
   * refused for a denied account or a replaced key (a connection can always be closed).
   */
  private async connectionAction(uow: UnitOfWork, lane: LaneHold, params: Params): Promise<Verdict<CallAnswer>> {
    const who = this.call.connection;
    if (!who || !isWellFormedUsername(who.username)) {
      return { answer: errorAnswer(new Unauthorized('A stream action names the account and the connection it belongs to')), write: false };
    }
    const read = uow.load(accountDecider, accountStream(who.username));
    const account = read instanceof Promise ? await read : read;
    if (!account.exists) return { answer: errorAnswer(new NotFound(`No account named ${who.username}`)), write: false };
    const queued = lane.enter(account.username);
    if (queued) return queued;
    const executed = this.execute(uow, account, null, params, undefined, undefined, undefined, undefined);
    const answer = executed instanceof Promise ? await executed : executed;
    if (answer === undefined) return { answer: { status: 500, body: { error: 'Internal error; nothing was changed' } }, write: false };
    if ('refused' in answer) return { answer: answer.refused, write: false };
    return { answer, write: true };
  }

  /**
   * The operator acting on an account (`caller: 'operator'`: its charge of stream usage injected by hand),
   * admitted on the endpoint's caller, not on a key (`ApiCall.operator` says why). The account must
   * exist; the call takes the account's lane as every call does, and is not refused for a denied account
   * (the operator denied it). It states its cost (`cost`), drawn from the general allowance at step 6 as
   * a REST call's is: what the allowance cannot pay answers 429 and writes nothing.
   */
  private async operatorAction(uow: UnitOfWork, lane: LaneHold, params: Params): Promise<Verdict<CallAnswer>> {
    const { call, endpoint } = this;
    const who = call.operator;
    if (!who) return { answer: errorAnswer(new Unauthorized(`${endpoint.id} is the operator's: the call names the account it acts on`)), write: false };
    let cost: number;
    try {
      // Read through the endpoint's terms once: the handler's `paramsOf` finds them read.
      params.read ??= readParams(termsOf(endpoint.id, call.version).params, params.raw);
      cost = (params.read as { cost: number }).cost;
    } catch (error) {
      if (error instanceof DomainError) return { answer: errorAnswer(error), write: false };
      throw error;
    }
    // A name outside the username character set names no account: 404 before any store is asked.
    if (!isWellFormedUsername(who.username)) return { answer: errorAnswer(new NotFound(`No account named ${JSON.stringify(who.username)}`)), write: false };
    const read = uow.load(accountDecider, accountStream(who.username));
    const account = read instanceof Promise ? await read : read;
    if (!account.exists) return { answer: errorAnswer(new NotFound(`No account named ${who.username}`)), write: false };
    const queued = lane.enter(account.username);
    if (queued) return queued;

    const now = uow.now;
    const creditsAt = creditsStream(account.username);
    const creditsRead = uow.load(creditsDecider, creditsAt);
    const credits = creditsRead instanceof Promise ? await creditsRead : creditsRead;
    const line: AllowanceLine = { key: 'general', limit: account.package.credits_per_hour, cost };
    let rate: RateFigures;
    try {
      const charged = uow.execute(creditsDecider, creditsAt, { type: 'ChargeCredits', at: now, endpoint: endpoint.id, lines: [line] });
      rate = figuresAfter((charged instanceof Promise ? await charged : charged).state, line, cost, now);
    } catch (error) {
      if (error instanceof CreditsExhausted) return { answer: { status: rateLimitStatus(call.version), body: { error: error.message }, rate: error.figures }, write: false };
      throw error;
    }
    const executed = this.execute(uow, account, null, params, rate, credits, line, undefined);
    const answer = executed instanceof Promise ? await executed : executed;
    if (answer === undefined) return { answer: { status: 500, body: { error: 'Internal error; nothing was charged' } }, write: false };
    if ('refused' in answer) return { answer: answer.refused, write: false };
    return { answer, write: true };
  }

  /**
   * Steps 6 and 7 of an endpoint charged on effect (a stream subscription): the handler runs first, and
   * the charge is decided only when it changed something; a refusal or a repeat charges nothing and
   * writes nothing, an allowance that cannot pay undoes the effect.
   */
  private async chargedOnEffect(
    uow: UnitOfWork,
    account: Account,
    identityId: string | null,
    params: Params,
    credits: Credits,
    reported: AllowanceLine | undefined,
    lines: AllowanceLine[],
  ): Promise<Verdict<CallAnswer>> {
    const { call, endpoint } = this;
    const now = uow.now;
    const before = identityId === null || !reported ? figuresBefore(credits, reported, endpoint, now) : bindingFigures(credits, reported, lines, endpoint.cost, now);
    const executed = this.execute(uow, account, identityId, params, before, undefined, undefined, before);
    const answer = executed instanceof Promise ? await executed : executed;
    if (answer === undefined) return { answer: { status: 500, body: { error: 'Internal error; nothing was charged' }, ...withRate(before) }, write: false };
    if ('refused' in answer) return { answer: answer.refused, write: false };
    if (answer.status >= 400 || this.effect === false) return { answer, write: false };
    if (lines.length === 0) return { answer, write: true };
    try {
      const charged = uow.execute(creditsDecider, creditsStream(account.username), { type: 'ChargeCredits', at: now, endpoint: endpoint.id, lines });
      const { state } = charged instanceof Promise ? await charged : charged;
      answer.rate = identityId === null ? figuresAfter(state, reported!, endpoint.cost, now) : bindingFigures(state, reported!, lines, endpoint.cost, now);
      return { answer, write: true };
    } catch (error) {
      if (error instanceof CreditsExhausted) return { answer: { status: rateLimitStatus(call.version), body: { error: error.message }, rate: error.figures }, write: false };
      throw error;
    }
  }

  /** What the last handler said of its effect (`HandlerAnswer.effect`), for an endpoint charged on effect. */
  private effect: boolean | undefined;
  /**
   * Step 7: the handler validates and executes, on the charge already staged; a domain refusal keeps the
   * charge, its effects rolled back. `undefined`: an unexpected failure, told and answered 500 by the
   * caller; `refused`: an answer that writes nothing. A value when the handler answered at once, a
   * promise only when it answered with one. The figures before the charge, for a refusal of 5xx, are
   * worked out from `credits` when given (else `fixedBefore`), and only for such a refusal.
   */
  private execute(
    uow: UnitOfWork,
    account: Account,
    identityId: string | null,
    params: Params,
    charged: RateFigures | undefined,
    credits: Credits | undefined,
    reported: AllowanceLine | undefined,
    fixedBefore: RateFigures | undefined,
  ): Executed | Promise<Executed> {
    const { call, endpoint, s } = this;
    const handler = s.handlers[endpoint.id];
    const savepoint = uow.savepoint();
    let result: HandlerAnswer | PromiseLike<HandlerAnswer>;
    try {
      if (call.unreadable) throw new DomainError(call.unreadable.status, call.unreadable.message);
      // Values that would reach an object's built-ins as keys, or nest past the limit: a 400 of step 7,
      // charged like any other invalid parameter (docs/contract.md#judgement-order), judged before a handler reads them.
      const refused = refusedInput(call.params);
      if (refused) throw refused;
      if (!handler) throw new NotImplemented(`${endpoint.path} (${endpoint.id})`);
      const ctx: CallContext = { call, version: call.version, endpoint, params, now: uow.now, ids: s.ids, account, identityId, uow, settings: s.settings, projections: s.projections, yieldTurn: s.yieldTurn };
      result = handler(ctx);
      // An embedder's handler may answer with any thenable, not only a native promise.
      if (typeof (result as Partial<PromiseLike<HandlerAnswer>>).then !== 'function') return this.answered(result as HandlerAnswer, charged);
    } catch (error) {
      return this.failed(error, uow, savepoint, charged, credits, reported, fixedBefore);
    }
    return this.executedLater(result as PromiseLike<HandlerAnswer>, uow, savepoint, charged, credits, reported, fixedBefore);
  }

  /** `execute`'s end for a handler that answered with a promise. */
  private async executedLater(
    result: PromiseLike<HandlerAnswer>,
    uow: UnitOfWork,
    savepoint: ReturnType<UnitOfWork['savepoint']>,
    charged: RateFigures | undefined,
    credits: Credits | undefined,
    reported: AllowanceLine | undefined,
    fixedBefore: RateFigures | undefined,
  ): Promise<Executed> {
    try {
      return this.answered(await result, charged);
    } catch (error) {
      return this.failed(error, uow, savepoint, charged, credits, reported, fixedBefore);
    }
  }

  /** A handler's answer as the call's, with the figures of its charge. */
  private answered(out: HandlerAnswer, rate: RateFigures | undefined): CallAnswer {
    this.effect = out.effect;
    const status = out.status ?? this.endpoint.success[0]!;
    const answer: CallAnswer = { status };
    if (status !== 204) answer.body = out.body ?? {};
    if (rate) answer.rate = rate;
    if (out.headers) answer.headers = out.headers;
    return answer;
  }

  /** What a handler's failure makes of the call (see `execute`); another writer or the store away is rethrown. */
  private failed(
    error: unknown,
    uow: UnitOfWork,
    savepoint: ReturnType<UnitOfWork['savepoint']>,
    rate: RateFigures | undefined,
    credits: Credits | undefined,
    reported: AllowanceLine | undefined,
    fixedBefore: RateFigures | undefined,
  ): Executed {
    const { call, endpoint, s } = this;
    if (!(error instanceof DomainError)) {
      // Another writer or the store going away is the attempt loop's to answer; any other failure is
      // a 500 that charges nothing (docs/contract.md#judgement-order) and still reports the figures, as every answer from
      // authentication on does.
      if (error instanceof VersionConflict || isStoreUnavailable(error)) throw error;
      s.onError?.(error, call);
      return undefined;
    }
    // Nothing is charged for a 5xx, so its cost is 0 (what a call's headers say is what it was charged).
    if (error.status >= 500) return { refused: errorAnswer(error, credits ? figuresUncharged(credits, reported, uow.now) : fixedBefore && { ...fixedBefore, cost: 0 }) };
    uow.rollbackTo(savepoint);
    return errorAnswer(error, rate, call.version);
  }
}

/** A call's credentials, as the judge reads them. */
type Credentials = NonNullable<ApiCall['credentials']>;

/** Step 7's outcome (see `CallJudge.execute`). */
type Executed = CallAnswer | { refused: CallAnswer } | undefined;

/**
 * A refused credential makes the same store reads whether its username exists or not, and whether its
 * account was cached: those of an account and an identity list read from the store (a cached state
 * answers at once, a name nobody has must be read), so the time of a 401 does not tell which usernames
 * exist. An unknown name's empty state is not kept, so probing names grows no cache either.
 */
async function readsOfARefusal(s: CallServices, username: string, exists: boolean, accountCached: boolean, identitiesCached: boolean): Promise<void> {
  const account = accountStream(username);
  if (!exists) s.loader.forgetStream(accountDecider, account);
  // A shared store is read on every load (the tail, or all of an unknown stream): the two paths already
  // read alike. A sole writer's cache answers a known account at once, where an unknown name is read.
  if (!s.loader.answersFromMemory) return;
  if (accountCached) await s.loader.readAsIfMissed(accountDecider, account);
  if (s.identities && (!exists || identitiesCached)) await s.loader.readAsIfMissed(identitiesDecider, identitiesStream(username));
}

/** An identity's calls also draw from that identity's narrower allowances. */
async function allowanceLines(s: CallServices, uow: UnitOfWork, account: Account, identityId: string, endpoint: Endpoint, params: Params): Promise<AllowanceLine[]> {
  const lines = accountLines(reportedLine(account, endpoint), endpoint);
  if (lines.length > 0 && s.identities) {
    lines.push(...(await s.identities.allowanceLines(uow, account, identityId, endpoint, params, endpoint.cost)));
  }
  return lines;
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
