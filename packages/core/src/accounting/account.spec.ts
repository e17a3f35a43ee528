import { describe, expect, it } from 'vitest';
import { deciderSpec } from '@sdp/testing';
import { accountDecider, type AccountEvent } from './account.ts';
import { constantTimeEqual, hashApiKey } from './api-key.ts';
import { completePackage, readPackageFields } from './package.ts';

const spec = () => deciderSpec(accountDecider);
const opened: AccountEvent = {
  type: 'AccountOpened',
  data: { username: 'alice', salt: 's1', keyHash: hashApiKey('s1', 'key-00000001'), package: completePackage({}), at: 1000 },
};

describe('account decider', () => {
  it('opens an account, keeping only a salted digest of its key', () => {
    const state = spec()
      .when({ type: 'OpenAccount', username: 'alice', apiKey: 'key-00000001', salt: 's1', package: {}, at: 1000 })
      .then([opened]);
    expect(JSON.stringify(state)).not.toContain('key-00000001');
    expect(state.package.credits_per_hour).toBe(10_000);
  });

  it('refuses a second account of the same name (409)', () => {
    spec().given([opened]).when({ type: 'OpenAccount', username: 'alice', apiKey: 'key-00000002', salt: 's2', package: {}, at: 2 }).thenThrows(409);
  });

  it('refuses a bad username or key (400)', () => {
    spec().when({ type: 'OpenAccount', username: 'a b', apiKey: 'key-00000001', salt: 's', package: {}, at: 0 }).thenThrows(400, /username/);
    spec().when({ type: 'OpenAccount', username: 'ab', apiKey: 'short', salt: 's', package: {}, at: 0 }).thenThrows(400, /api_key/);
  });

  it('refuses a key some form of credentials cannot carry: a comma (read as a second header), a space, a colon, beyond ASCII (400)', () => {
    for (const apiKey of ['key,with,commas', 'key with space', 'key:colon-1', 'clé-secret-1', 'tab\tkey-0001']) {
      spec().when({ type: 'OpenAccount', username: 'ab', apiKey, salt: 's', package: {}, at: 0 }).thenThrows(400, /printable ASCII characters with no spaces, colons or commas/);
    }
    spec()
      .when({ type: 'OpenAccount', username: 'ab', apiKey: '~!@#$%^&*()_+-=[]{}|;<>?./', salt: 's', package: {}, at: 0 })
      .then([{ type: 'AccountOpened', data: { username: 'ab', salt: 's', keyHash: hashApiKey('s', '~!@#$%^&*()_+-=[]{}|;<>?./'), package: completePackage({}), at: 0 } }]);
  });

  it('changes the package field by field, keeping the others', () => {
    const s = spec()
      .given([opened])
      .when({ type: 'ChangePackage', fields: { credits_per_hour: 500 } })
      .then([{ type: 'PackageChanged', data: { package: { ...completePackage({}), credits_per_hour: 500 } } }]);
    expect(s.package.analyze_credits_per_hour).toBe(10_000);
  });

  it('denies and allows again; repeating either decides nothing', () => {
    const denied: AccountEvent = { type: 'AccountDenied', data: { reason: 'spam' } };
    spec().given([opened]).when({ type: 'DenyAccount', reason: 'spam' }).then([denied]);
    spec().given([opened, denied]).when({ type: 'DenyAccount', reason: 'again' }).then([]);
    spec().given([opened, denied]).when({ type: 'AllowAccount' }).then([{ type: 'AccountAllowed', data: {} }]);
    spec().given([opened]).when({ type: 'AllowAccount' }).then([]);
  });

  it('replaces the key with one hashed under the same salt (identities keep theirs); a bad key is refused', () => {
    const s = spec()
      .given([opened])
      .when({ type: 'ReplaceApiKey', apiKey: 'key-00000009' })
      .then([{ type: 'ApiKeyReplaced', data: { keyHash: hashApiKey('s1', 'key-00000009') } }]);
    expect(s.salt).toBe('s1');
    spec().given([opened]).when({ type: 'ReplaceApiKey', apiKey: 'has space' }).thenThrows(400, /api_key/);
  });

  it('answers 404 for commands on an account that does not exist', () => {
    spec().when({ type: 'DenyAccount', reason: 'x' }).thenThrows(404);
    spec().when({ type: 'ReplaceApiKey', apiKey: 'key-00000009' }).thenThrows(404);
  });
});

describe('package fields', () => {
  it('reads valid fields and refuses unknown or malformed ones, naming them', () => {
    expect(readPackageFields({ task_slots: 2, services: ['linkedin'] })).toEqual({ task_slots: 2, services: ['linkedin'] });
    expect(() => readPackageFields({ credits_per_hours: 5 })).toThrow(/no field credits_per_hours/);
    expect(() => readPackageFields({ credits_per_hour: -1 })).toThrow(/credits_per_hour/);
    expect(() => readPackageFields({ credits_per_hour: '5' })).toThrow(/credits_per_hour/);
    expect(() => readPackageFields({ services: [] })).toThrow(/services/);
    expect(() => readPackageFields([1])).toThrow(/object/);
  });
});

describe('API key comparison', () => {
  it('is equality, whatever the lengths', () => {
    expect(constantTimeEqual('abc', 'abc')).toBe(true);
    expect(constantTimeEqual('abc', 'abd')).toBe(false);
    expect(constantTimeEqual('abc', 'ab')).toBe(false);
    expect(constantTimeEqual('', 'a')).toBe(false);
    expect(constantTimeEqual('', '')).toBe(true);
  });
});
