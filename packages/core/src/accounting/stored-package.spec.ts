import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { fold } from '../kernel/decider.ts';
import { accountDecider, type AccountEvent } from './account.ts';
import { hashApiKey } from './api-key.ts';
import { DEFAULT_PACKAGE, type AccountPackage } from './package.ts';

const FIELDS = Object.keys(DEFAULT_PACKAGE) as (keyof AccountPackage)[];
const bought: AccountPackage = { ...DEFAULT_PACKAGE, credits_per_hour: 77, task_slots: 3, services: ['tumblr'], redaction_bucket_min: 5 };

/** `pkg` as an older build would have stored it: without the fields that did not exist yet. */
const without = (pkg: AccountPackage, missing: (keyof AccountPackage)[]): AccountPackage =>
  Object.fromEntries(Object.entries(pkg).filter(([k]) => !missing.includes(k as keyof AccountPackage))) as unknown as AccountPackage;

const opened = (pkg: AccountPackage): AccountEvent => ({
  type: 'AccountOpened',
  data: { username: 'old', salt: 's', keyHash: hashApiKey('s', 'old-key-0001'), package: pkg, at: 1 },
});

describe('packages kept whole in account events', () => {
  test.prop([fc.subarray(FIELDS), fc.subarray(FIELDS), fc.boolean()])(
    'every account folds to a complete package, whatever fields its stored events lack',
    (lackOpened, lackChanged, changed) => {
      const events: AccountEvent[] = [opened(without(bought, lackOpened))];
      if (changed) events.push({ type: 'PackageChanged', data: { package: without({ ...bought, concurrent_recordings: 4 }, lackChanged) } });
      const state = fold(accountDecider, events);
      const lacking = changed ? lackChanged : lackOpened;
      const stored: AccountPackage = changed ? { ...bought, concurrent_recordings: 4 } : bought;
      for (const field of FIELDS) {
        expect(typeof state.package[field], field).toBe(typeof DEFAULT_PACKAGE[field]);
        expect(state.package[field], field).toEqual(lacking.includes(field) ? DEFAULT_PACKAGE[field] : stored[field]);
      }
    },
  );

  it('an AccountOpened written before the redaction fields existed folds with their defaults', () => {
    const state = fold(accountDecider, [opened(without(bought, ['redaction_audience_min', 'redaction_bucket_min']))]);
    expect(state.package).toEqual({ ...bought, redaction_audience_min: 1000, redaction_bucket_min: 100 });
  });

  it('names its snapshot kind for the package fields it folds', () => {
    // A snapshot keeps the folded package as it was: when AccountPackage gains a field, a snapshot
    // taken before lacks it and the fold above never runs on it. Bump accountDecider.name with the
    // field (snapshots of another kind are ignored), then update this list.
    expect({ name: accountDecider.name, fields: [...FIELDS].sort() }).toEqual({
      name: 'account.v3',
      fields: [
        'analyze_credits_per_hour',
        'concurrent_recordings',
        'credits_per_hour',
        'filter_chars_per_day',
        'historics_queries',
        'idempotency_keys',
        'identities',
        'identity_tokens',
        'index_capacity_per_month',
        'managed_sources',
        'push_subscriptions',
        'recordings',
        'redaction_audience_min',
        'redaction_bucket_min',
        'services',
        'stream_connections',
        'task_slots',
      ],
    });
  });
});
