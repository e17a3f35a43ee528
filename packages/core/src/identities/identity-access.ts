import type { Account } from '../accounting/account.ts';
import { defaultService } from '../accounting/package-service.ts';
import type { AllowanceLine } from '../accounting/credit-window.ts';
import type { Endpoint } from '../catalogue/endpoints.ts';
import type { IdentityAccess } from '../handling/handler.ts';
import type { Params } from '../calls/params.ts';
import type { UnitOfWork } from '../kernel/unit-of-work.ts';
import { callingIdentity, identitiesDecider, identitiesStream, type Identity } from './identity.ts';

/**
 * The service a call is counted against for identity limits: the `service` it names when that is one
 * of the package's services, else the service the service-less insight paths serve (`facebook` when the
 * package has it, else its first service), as recordings read it.
 */
export function identityLimitService(account: Account, params: Params): string | undefined {
  const named = params.raw['service'];
  if (typeof named === 'string' && account.package.services.includes(named)) return named;
  return defaultService(account.package);
}

/**
 * The narrower allowances a call made with an identity's key also draws from (docs/contract.md#hourly-allowances). They are
 * extra lines beside the account's own, so the account-wide limit still applies on top:
 * - `total_allowance`: credits an hour, for calls on the general allowance;
 * - `analyze_queries`: analyze calls an hour (each counts 1), for calls on the analyze allowance.
 */
export function identityAllowanceLines(identity: Identity, service: string | undefined, endpoint: Endpoint, cost: number): AllowanceLine[] {
  const limit = service === undefined ? undefined : identity.limits[service];
  if (!limit) return [];
  if (endpoint.allowance === 'general' && limit.totalAllowance !== null) {
    return [{ key: `identity:${identity.id}:${service}:general`, limit: limit.totalAllowance, cost }];
  }
  if (endpoint.allowance === 'analyze' && limit.analyzeQueries !== null) {
    return [{ key: `identity:${identity.id}:${service}:analyze`, limit: limit.analyzeQueries, cost: 1 }];
  }
  return [];
}

/** The engine's hook for identity keys, read from the account's identities stream. */
export const identityAccess: IdentityAccess = {
  async identityForKey(uow: UnitOfWork, account: Account, keyHash: string): Promise<string | null> {
    const state = await uow.load(identitiesDecider, identitiesStream(account.username));
    return callingIdentity(state, keyHash)?.id ?? null;
  },
  async allowanceLines(uow: UnitOfWork, account: Account, identityId: string, endpoint: Endpoint, params: Params, cost: number): Promise<AllowanceLine[]> {
    const state = await uow.load(identitiesDecider, identitiesStream(account.username));
    const identity = state.byId[identityId];
    if (!identity || identity.deleted) return [];
    return identityAllowanceLines(identity, identityLimitService(account, params), endpoint, cost);
  },
};
