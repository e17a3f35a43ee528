import { describe, expect, it } from 'vitest';
import { fc, test } from '@fast-check/vitest';
import { readCredentials } from './credentials.ts';

describe('readCredentials: the three forms real clients send (docs/clients.md#authentication-forms)', () => {
  it('reads the raw Authorization form', () => {
    expect(readCredentials('alice:k3y', undefined)).toEqual({ username: 'alice', apiKey: 'k3y' });
  });
  it('reads the Auth header', () => {
    expect(readCredentials(undefined, 'alice:k3y')).toEqual({ username: 'alice', apiKey: 'k3y' });
  });
  it('reads HTTP Basic, whatever the scheme case', () => {
    const token = Buffer.from('alice:k3y').toString('base64');
    expect(readCredentials(`Basic ${token}`, undefined)).toEqual({ username: 'alice', apiKey: 'k3y' });
    expect(readCredentials(`basic ${token}`, undefined)).toEqual({ username: 'alice', apiKey: 'k3y' });
  });
  it('falls back to Auth when Authorization is not a pair', () => {
    expect(readCredentials('Bearer abc', 'alice:k3y')).toEqual({ username: 'alice', apiKey: 'k3y' });
  });
  it('reads malformed values as no credentials', () => {
    for (const bad of ['', 'alice', ':k', 'alice:', 'Basic !!!', 'Basic ' + Buffer.from('nocolon').toString('base64'), 'Bearer a:b']) {
      expect(readCredentials(bad, undefined)).toBeUndefined();
    }
  });
  test.prop([fc.stringMatching(/^[A-Za-z0-9_.@-]{1,64}$/), fc.stringMatching(/^[!-9;-~]{8,128}$/)])(
    'every form of the same pair reads as that pair',
    (username, apiKey) => {
      const want = { username, apiKey };
      expect(readCredentials(`${username}:${apiKey}`, undefined)).toEqual(want);
      expect(readCredentials(undefined, `${username}:${apiKey}`)).toEqual(want);
      expect(readCredentials(`Basic ${Buffer.from(`${username}:${apiKey}`).toString('base64')}`, undefined)).toEqual(want);
    },
  );
});
