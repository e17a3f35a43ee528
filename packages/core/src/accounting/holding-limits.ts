import { DomainError } from '../calls/errors.ts';
import type { HoldingLimit } from './package.ts';

/** What each holding limit counts, in the words its refusal uses. */
const NOUNS: Record<HoldingLimit, [one: string, many: string, remedy: string]> = {
  recordings: ['recording', 'recordings', 'restart a stopped one instead of starting another'],
  push_subscriptions: ['push subscription', 'push subscriptions', 'delete one before creating another'],
  managed_sources: ['managed source', 'managed sources', 'delete one before creating another'],
  identities: ['identity', 'identities', 'delete one before creating another'],
  identity_tokens: ['token per identity', 'tokens per identity', 'a deleted token keeps its place: replace a token of a service the identity has instead'],
  historics_queries: ['historics query', 'historics queries', 'delete one before preparing another'],
  idempotency_keys: ['idempotency key in 24 hours', 'idempotency keys in 24 hours', 'send the call without Idempotency-Key or wait for the oldest key to expire'],
};

/**
 * A package limit on what an account holds: answered 403 like `concurrent_recordings`, naming the package
 * field an operator raises, so one account's state stays within a bound whatever it sends.
 */
export class HoldingLimitReached extends DomainError {
  constructor(
    readonly field: HoldingLimit,
    readonly limit: number,
  ) {
    const [one, many, remedy] = NOUNS[field];
    super(403, `Your package allows ${limit} ${limit === 1 ? one : many} (${field}); ${remedy}`);
  }
}

/** Refuses adding one more when `held` already reaches `limit`. */
export function checkHolding(field: HoldingLimit, held: number, limit: number): void {
  if (held >= limit) throw new HoldingLimitReached(field, limit);
}
