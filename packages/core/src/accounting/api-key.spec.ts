import { createHash } from 'node:crypto';
import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { ApiKeyDigests, hashApiKey } from './api-key.ts';

describe('ApiKeyDigests', () => {
  test.prop([fc.array(fc.tuple(fc.constantFrom('s1', 's2', 's3', 's4'), fc.constantFrom('k1', 'k2', 'k3')), { maxLength: 60 })])(
    'remembers digests without ever answering one of another salt or key (any order of salts and keys, tiny memo)',
    (calls) => {
      const digests = new ApiKeyDigests(2, 2);
      for (const [salt, key] of calls) expect(digests.digest(salt, key)).toBe(hashApiKey(salt, key));
    },
  );

  it('keeps a digest per salt for accounts that share one key', () => {
    const digests = new ApiKeyDigests();
    const first = ['a', 'b', 'c'].map((salt) => digests.digest(salt, 'shared'));
    expect(new Set(first).size).toBe(3);
    expect(['a', 'b', 'c'].map((salt) => digests.digest(salt, 'shared'))).toEqual(first);
  });
});

describe('hashApiKey', () => {
  // Stored digests were written as SHA-256 of `salt:key` in lowercase hex: any faster way of making them must stay that.
  test.prop([fc.string({ unit: 'grapheme', maxLength: 40 }), fc.string({ unit: 'grapheme', maxLength: 80 })])(
    'is the lowercase hex SHA-256 of salt:key, 64 digits, for any salt and key',
    (salt, key) => {
      expect(hashApiKey(salt, key)).toBe(createHash('sha256').update(`${salt}:${key}`, 'utf8').digest('hex'));
    },
  );
});
