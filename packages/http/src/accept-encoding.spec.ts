import { describe, expect, it } from 'vitest';
import { chooseCoding } from './accept-encoding.ts';

const pick = (field: string | undefined) => chooseCoding(field, ['gzip', 'identity']);

describe('chooseCoding: the coding of an answer, from Accept-Encoding', () => {
  it('identity without the field, with an empty one, or when it names nothing offered', () => {
    expect(pick(undefined)).toBe('identity');
    expect(pick('')).toBe('identity');
    expect(pick('br')).toBe('identity');
    expect(pick('deflate, br;q=0.9')).toBe('identity');
  });

  it('gzip when asked for, in any case and as x-gzip, ahead of an identity not named', () => {
    expect(pick('gzip')).toBe('gzip');
    expect(pick('GZIP')).toBe('gzip');
    expect(pick('x-gzip')).toBe('gzip');
    expect(pick('gzip, deflate, br')).toBe('gzip');
    expect(pick('br;q=1.0, gzip;q=0.1')).toBe('gzip');
  });

  it('honours q-values: the highest wins, q=0 refuses, and equal values go to the smaller body', () => {
    expect(pick('gzip;q=0')).toBe('identity');
    expect(pick('gzip;q=0.4, identity;q=0.5')).toBe('identity');
    expect(pick('gzip;q=0.6, identity;q=0.5')).toBe('gzip');
    expect(pick('identity, gzip')).toBe('gzip');
    expect(pick('gzip ; Q=0.000')).toBe('identity');
  });

  it('reads * as every coding not named, so *;q=0 refuses identity too', () => {
    expect(pick('*')).toBe('gzip');
    expect(pick('*;q=0.2')).toBe('gzip');
    expect(pick('gzip;q=0, *')).toBe('identity');
    expect(pick('identity;q=0, *;q=0.3')).toBe('gzip');
    // Nothing acceptable: the bytes as they are rather than a 406 (RFC 9110 §12.5.3).
    expect(pick('gzip;q=0, *;q=0')).toBe('identity');
  });

  it('drops an entry whose q-value does not read, rather than taking it as 1', () => {
    expect(pick('gzip;q=2')).toBe('identity');
    expect(pick('gzip;q=abc')).toBe('identity');
    expect(pick('gzip;q=0.1234')).toBe('identity');
    expect(pick('gzip;q=')).toBe('identity');
    expect(pick('gzip;level=9')).toBe('gzip');
  });
});
