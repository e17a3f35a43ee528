import { BadRequest } from '../calls/errors.ts';

/** What an account has bought (docs/contract.md#package-fields). */
export interface AccountPackage {
  credits_per_hour: number;
  analyze_credits_per_hour: number;
  task_slots: number;
  index_capacity_per_month: number;
  concurrent_recordings: number;
  services: string[];
  /** Unique authors an analysis needs before it shows results. */
  redaction_audience_min: number;
  /** Unique authors a bucket needs to be shown. */
  redaction_bucket_min: number;
  /** Recordings the account holds, running or stopped (`concurrent_recordings` bounds the running ones). */
  recordings: number;
  /** Push subscriptions not deleted (finished and failed ones count until they are deleted). */
  push_subscriptions: number;
  /** Managed sources not deleted. */
  managed_sources: number;
  /** Identities not deleted. */
  identities: number;
  /** Tokens one identity holds, one per service. */
  identity_tokens: number;
  /** Historics queries not deleted. */
  historics_queries: number;
  /** Idempotency keys recorded within 24 hours. */
  idempotency_keys: number;
  /** Characters of filter definitions not compiled before that the account may record in a limiting day. */
  filter_chars_per_day: number;
  /** Stream connections open at once (docs/contract.md#the-stream; each holds up to 5,000 subscribed hashes). */
  stream_connections: number;
}

export const DEFAULT_PACKAGE: Readonly<AccountPackage> = Object.freeze({
  credits_per_hour: 10_000,
  analyze_credits_per_hour: 10_000,
  task_slots: 1,
  index_capacity_per_month: 12_000_000,
  concurrent_recordings: 10,
  services: ['facebook', 'linkedin'],
  redaction_audience_min: 1000,
  redaction_bucket_min: 100,
  // Counts of what an account holds: far above what a real account keeps, low enough that one account's
  // state stays small (docs/limits.md, "What an account can hold").
  recordings: 1000,
  push_subscriptions: 1000,
  managed_sources: 1000,
  identities: 1000,
  identity_tokens: 100,
  historics_queries: 1000,
  idempotency_keys: 1000,
  filter_chars_per_day: 64 * 1024 * 1024,
  // A consumer needs one connection (multi carries 5,000 hashes); one client opens one per 200 hashes.
  stream_connections: 25,
});

const COUNT_FIELDS = [
  'credits_per_hour',
  'analyze_credits_per_hour',
  'task_slots',
  'index_capacity_per_month',
  'concurrent_recordings',
  'redaction_audience_min',
  'redaction_bucket_min',
  'recordings',
  'push_subscriptions',
  'managed_sources',
  'identities',
  'identity_tokens',
  'historics_queries',
  'idempotency_keys',
  'filter_chars_per_day',
  'stream_connections',
] as const;

/** The package fields that bound how many of a resource an account holds. */
export type HoldingLimit = 'recordings' | 'push_subscriptions' | 'managed_sources' | 'identities' | 'identity_tokens' | 'historics_queries' | 'idempotency_keys';

const MAX_COUNT = 1e12;

/**
 * Reads package fields from untrusted JSON: every field optional, each checked, unknown fields refused so
 * a typo does not silently keep a default.
 */
export function readPackageFields(input: unknown): Partial<AccountPackage> {
  if (input === undefined || input === null) return {};
  if (typeof input !== 'object' || Array.isArray(input)) throw new BadRequest('package must be a JSON object');
  const out: Partial<AccountPackage> = {};
  for (const [key, value] of Object.entries(input as Record<string, unknown>)) {
    if ((COUNT_FIELDS as readonly string[]).includes(key)) {
      if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > MAX_COUNT) {
        throw new BadRequest(`package.${key} must be a whole number from 0 to ${MAX_COUNT}`);
      }
      (out as Record<string, number>)[key] = value;
    } else if (key === 'services') {
      if (!Array.isArray(value) || value.length === 0 || !value.every((s) => typeof s === 'string' && /^[a-z0-9_]{1,40}$/.test(s))) {
        throw new BadRequest('package.services must be a non-empty list of service names (lowercase letters, digits, _)');
      }
      out.services = [...new Set(value as string[])];
    } else {
      throw new BadRequest(`package has no field ${key}; fields are ${[...COUNT_FIELDS, 'services'].join(', ')}`);
    }
  }
  if (out.task_slots === 0) throw new BadRequest('package.task_slots must be at least 1');
  return out;
}

export function completePackage(fields: Partial<AccountPackage>, base: AccountPackage = DEFAULT_PACKAGE): AccountPackage {
  return { ...base, ...fields, services: [...(fields.services ?? base.services)] };
}

/**
 * A package as an event kept it (`AccountOpened` and `PackageChanged` store the whole package), with each
 * field it lacks at its default: an event written before a field existed folds to a complete package.
 * Where old accounts must get another value than the default, register an upcaster instead
 * (`platform-events.ts`), so the old events say what they meant.
 */
export function storedPackage(stored: Partial<AccountPackage>): AccountPackage {
  return completePackage(stored);
}
