import * as fc from 'fast-check';
import { DEFAULT_PACKAGE, ENDPOINTS, VERSIONS, type AccountPackage, type AllowanceKind, type ApiCall, type EndpointId, type VersionId } from '@sdp/core';

/**
 * fast-check arbitraries for the platform's inputs. Each produces only valid values (what a property
 * needs to exercise limits, not input validation); `fc` is re-exported so one import serves.
 */
export { fc };

export const versionArb: fc.Arbitrary<VersionId> = fc.constantFrom(...VERSIONS.map((v) => v.id));

/** Package fields an operator may set; small allowances are likely, so limits are met often. */
export function packageArb(overrides: Partial<Record<keyof AccountPackage, fc.Arbitrary<unknown>>> = {}): fc.Arbitrary<AccountPackage> {
  // Typed field by field, so a field added to the package fails to compile here until it has an arbitrary.
  const fields: { [K in keyof AccountPackage]: fc.Arbitrary<AccountPackage[K]> } = {
    credits_per_hour: fc.oneof(fc.integer({ min: 0, max: 200 }), fc.integer({ min: 200, max: 20_000 })),
    analyze_credits_per_hour: fc.oneof(fc.integer({ min: 0, max: 150 }), fc.integer({ min: 150, max: 20_000 })),
    task_slots: fc.integer({ min: 1, max: 4 }),
    index_capacity_per_month: fc.integer({ min: 0, max: 60_000_000 }),
    concurrent_recordings: fc.integer({ min: 0, max: 20 }),
    services: fc.subarray([...DEFAULT_PACKAGE.services], { minLength: 1 }),
    redaction_audience_min: fc.integer({ min: 0, max: 2000 }),
    redaction_bucket_min: fc.integer({ min: 0, max: 200 }),
    recordings: fc.integer({ min: 0, max: 2000 }),
    push_subscriptions: fc.integer({ min: 0, max: 2000 }),
    managed_sources: fc.integer({ min: 0, max: 2000 }),
    identities: fc.integer({ min: 0, max: 2000 }),
    identity_tokens: fc.integer({ min: 0, max: 200 }),
    historics_queries: fc.integer({ min: 0, max: 2000 }),
    idempotency_keys: fc.integer({ min: 0, max: 2000 }),
    filter_chars_per_day: fc.integer({ min: 0, max: 128 * 1024 * 1024 }),
    stream_connections: fc.integer({ min: 0, max: 50 }),
  };
  return fc.record({ ...fields, ...overrides } as Record<keyof AccountPackage, fc.Arbitrary<unknown>>) as fc.Arbitrary<AccountPackage>;
}

const USERNAME_CHARS = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.@-';
const KEY_CHARS = 'abcdef0123456789';

export interface AccountInput {
  username: string;
  api_key: string;
  package: AccountPackage;
}

/** What `engine.openAccount` accepts: a valid username, a valid API key, a package. */
export function accountArb(pkg: fc.Arbitrary<AccountPackage> = packageArb()): fc.Arbitrary<AccountInput> {
  return fc.record({
    username: fc.string({ unit: fc.constantFrom(...USERNAME_CHARS), minLength: 1, maxLength: 24 }),
    api_key: fc.string({ unit: fc.constantFrom(...KEY_CHARS), minLength: 16, maxLength: 40 }),
    package: pkg,
  });
}

const TEXT_TARGETS = ['fb.content', 'interaction.content', 'fb.parent.content', 'fb.author.country', 'fb.link'];
const WORDS = ['coffee', 'tea', 'espresso', 'cars', 'ruby', 'data', 'meetup', 'paris', 'london', 'sale'];

/** A condition the filter language accepts: a text target with a text operator and a quoted argument. */
const conditionArb: fc.Arbitrary<string> = fc.oneof(
  fc.tuple(fc.constantFrom(...TEXT_TARGETS), fc.constantFrom('contains', '==', '!=', 'substr'), fc.constantFrom(...WORDS)).map(([t, op, w]) => `${t} ${op} "${w}"`),
  fc.tuple(fc.constantFrom(...TEXT_TARGETS), fc.constantFrom('contains_any', 'contains_all', 'in'), fc.uniqueArray(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 4 })).map(([t, op, ws]) => `${t} ${op} "${ws.join(', ')}"`),
  fc.constantFrom(...TEXT_TARGETS).map((t) => `${t} exists`),
  fc.tuple(fc.constantFrom('fb.author.age'), fc.constantFrom('==', '!=', '<', '>'), fc.integer({ min: 13, max: 99 })).map(([t, op, n]) => `${t} ${op} ${n}`),
);

/** Simple valid filter texts: conditions joined with and/or, some negated or parenthesised. */
export const filterTextArb: fc.Arbitrary<string> = fc.letrec<{ expr: string }>((tie) => ({
  expr: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    conditionArb,
    fc.tuple(tie('expr'), fc.constantFrom('and', 'or', 'AND', 'OR'), tie('expr')).map(([a, op, b]) => `(${a}) ${op} (${b})`),
    tie('expr').map((e) => `not (${e})`),
  ),
})).expr;

export interface CallSpec {
  version: VersionId;
  endpoint: EndpointId;
  params: Record<string, unknown>;
}

/**
 * Calls to endpoints drawing from the given allowances (the general and analyze ones by default), at any
 * version; `core.validate` and friends get a valid filter. Use `endpoints` to pick your own list.
 */
export function callArb(opts: { endpoints?: readonly EndpointId[]; allowances?: AllowanceKind[] } = {}): fc.Arbitrary<CallSpec> {
  const allowances = opts.allowances ?? ['general', 'analyze'];
  const ids = opts.endpoints ?? ENDPOINTS.filter((e) => allowances.includes(e.allowance)).map((e) => e.id);
  return fc.record({
    version: versionArb,
    endpoint: fc.constantFrom(...ids),
    params: fc.record({ csdl: filterTextArb }),
  });
}

/** Turns a call spec into an `ApiCall` for an account. */
export function asApiCall(spec: CallSpec, account: { username: string; api_key: string }): ApiCall {
  return { version: spec.version, endpoint: spec.endpoint, params: spec.params, credentials: { username: account.username, apiKey: account.api_key }, mediaType: 'application/json' };
}

/** A move of the manual clock: a few milliseconds to a few hours, landing on and off minute marks. */
export const clockMoveArb: fc.Arbitrary<number> = fc.oneof(
  fc.integer({ min: 0, max: 2_000 }),
  fc.integer({ min: 0, max: 120_000 }),
  fc.constantFrom(59_999, 60_000, 60_001, 3_599_999, 3_600_000, 3_600_001),
  fc.integer({ min: 0, max: 3 * 3_600_000 }),
);
