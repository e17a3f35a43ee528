import { accountDecider, accountStream, isWellFormedApiKey, isWellFormedUsername, type Account } from '../accounting/account.ts';
import { constantTimeEqual, type ApiKeyDigests } from '../accounting/api-key.ts';
import { creditsDecider, creditsStream, CreditsExhausted, figuresOf, windowAt, type AllowanceLine, type Credits, type RateFigures } from '../accounting/credit-window.ts';
import { DEFAULT_PACKAGE } from '../accounting/package.ts';
import type { Endpoint } from '../catalogue/endpoints.ts';
import { BadRequest, DomainError, NotFound, NotImplemented, Unauthorized } from '../calls/errors.ts';
import { checkJsonDepth, prototypeKeyParam } from '../calls/input-limits.ts';
import { Params } from '../calls/params.ts';
import type { ApiCall, CallAnswer, CallContext, EngineSettings, HandlerAnswer, HandlerTable, IdentityAccess } from '../handling/handler.ts';
import { admitKey, callFingerprint, heldAt, idempotencyDecider, idempotencyStream, replayOf } from '../idempotency/idempotency-keys.ts';
import { identitiesDecider, identitiesStream } from '../identities/identity.ts';
import type { AggregateLoader } from '../kernel/aggregates.ts';
import type { AppendResult, StreamAppend } from '../kernel/events.ts';
import type { Ids } from '../kernel/ports.ts';
import type { Projections } from '../kernel/projection.ts';
import type { UnitOfWork } from '../kernel/unit-of-work.ts';
import { VersionConflict } from '../kernel/version-conflict.ts';
import { isStoreUnavailable, type GaveUp, type Judge, type LaneHold, type Verdict } from './attempt-loop.ts';
import { accountLines, bindingFigures, errorAnswer, figuresAfter, figuresBefore, rateLimitStatus, reportedLine, withRate } from './rate-figures.ts';

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
   * written; or the queue for the account's lane when another call of the account holds it.
   */
  async judge(uow: UnitOfWork, lane: LaneHold): Promise<Verdict<CallAnswer>> {
    const { call, endpoint, s } = this;
    const now = uow.now;
    const params = new Params(call.params ?? {});
    if (endpoint.caller === 'connection') return this.connectionAction(uow, lane, params);

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
      const keyHash = s.digests.digest(account.salt, creds.apiKey);
      if (constantTimeEqual(keyHash, account.keyHash)) authenticated = true;
      else if (s.identities) {
        identitiesCached = s.loader.answersFromCache(identitiesDecider, identitiesStream(creds.username));
        identityId = await s.identities.identityForKey(uow, account, keyHash);
        authenticated = identityId !== null;
      }
    } else if (creds) {
      // An unknown username costs the same digest and comparison, so timing does not tell which names exist.
      constantTimeEqual(s.digests.digest(DUMMY_SALT, creds.apiKey), DUMMY_DIGEST);
    }
    if (creds && !authenticated) await readsOfARefusal(s, creds.username, account?.exists === true, accountCached, identitiesCached);
    if (!account || !authenticated) {
      const fresh = windowAt({}, 'general', now);
      const rate = endpoint.allowance === 'none' ? undefined : figuresOf(fresh, DEFAULT_PACKAGE.credits_per_hour, endpoint.cost, now);
      return { answer: errorAnswer(new Unauthorized(), rate), write: false };
    }
    // Queued behind the account's other calls: the loop waits for the turn and asks again from step 4.
    const queued = lane.enter(account.username);
    if (queued) return queued;

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

    // 7. Charged; now validate and execute. A handler that answers at once is not awaited: no promise
    // and no turn of the microtask queue between the charge and the answer.
    const executed = this.execute(uow, account, identityId, params, rate, credits, reported, undefined);
    const answer = executed instanceof Promise ? await executed : executed;
    if (answer === undefined) return { answer: { status: 500, body: { error: 'Internal error; nothing was charged' }, ...withRate(figuresBefore(credits, reported, endpoint, now)) }, write: false };
    if ('refused' in answer) return { answer: answer.refused, write: false };
    if (idempotencyKey !== undefined) {
      await uow.execute(idempotencyDecider, idempotencyStream(account.username), { type: 'RecordIdempotentCall', key: idempotencyKey, fingerprint: fingerprint!, at: now, answer, holdLimit: account.package.idempotency_keys });
    }
    return { answer, write: true };
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
    if (error.status >= 500) return { refused: errorAnswer(error, credits ? figuresBefore(credits, reported, endpoint, uow.now) : fixedBefore) };
    uow.rollbackTo(savepoint);
    return errorAnswer(error, rate, call.version);
  }
}

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
