import { describe, expect, it } from 'vitest';
import { BodyError, MAX_JSON_DEPTH, bodyParams, decodeUtf8, formParams, mediaTypeOf, mergeParams } from './body.ts';

const status = (fn: () => unknown): number => {
  try {
    fn();
  } catch (e) {
    if (e instanceof BodyError) return e.status;
    throw e;
  }
  return 0;
};

describe('bodyParams: the body encodings of docs/clients.md#how-parameters-travel', () => {
  it('keeps a JSON body as it is, nested objects and JSON text alike (the core reads them)', () => {
    const body = { output_type: 's3', output_params: { bucket: 'b' }, resources: '[{"a":1}]', with_estimate: 1 };
    expect(bodyParams(JSON.stringify(body), 'application/json')).toEqual(body);
  });
  it('reads a form body, flattened keys and comma lists left for the core', () => {
    expect(bodyParams('output_params.bucket=b&sources=facebook%2Ctwitter&all=false', 'application/x-www-form-urlencoded')).toEqual({
      'output_params.bucket': 'b',
      sources: 'facebook,twitter',
      all: 'false',
    });
  });
  it('sniffs bodies sent without a media type', () => {
    expect(bodyParams('{"hash":"abc"}', undefined)).toEqual({ hash: 'abc' });
    expect(bodyParams('hash=abc', undefined)).toEqual({ hash: 'abc' });
    expect(bodyParams('{"hash":"abc"}', 'text/plain')).toEqual({ hash: 'abc' });
  });
  it('reads an empty body as no parameters, and an empty JSON list too (PHP encodes no parameters as [])', () => {
    expect(bodyParams('   ', 'application/json')).toEqual({});
    expect(bodyParams('[]', 'application/json')).toEqual({});
    expect(bodyParams(' [ ] ', 'application/json')).toEqual({});
  });
  it('answers 400 for bad JSON, non-object JSON and too deep JSON; 415 for other media types', () => {
    expect(status(() => bodyParams('{"a":', 'application/json'))).toBe(400);
    expect(status(() => bodyParams('[1,2]', 'application/json'))).toBe(400);
    expect(status(() => bodyParams('"text"', 'application/json'))).toBe(400);
    expect(status(() => bodyParams('null', 'application/json'))).toBe(400);
    expect(status(() => bodyParams('{"a":'.repeat(MAX_JSON_DEPTH + 1) + '1' + '}'.repeat(MAX_JSON_DEPTH + 1), 'application/json'))).toBe(400);
    expect(status(() => bodyParams('{"a":'.repeat(MAX_JSON_DEPTH - 1) + '1' + '}'.repeat(MAX_JSON_DEPTH - 1), 'application/json'))).toBe(0);
    expect(status(() => bodyParams('<xml/>', 'application/xml'))).toBe(415);
  });
  it('does not count brackets inside strings as nesting', () => {
    expect(bodyParams(JSON.stringify({ csdl: '['.repeat(500) + '\\"{' }), 'application/json')).toEqual({ csdl: '['.repeat(500) + '\\"{' });
  });
  it('answers 400 for invalid UTF-8', () => {
    expect(status(() => decodeUtf8(new Uint8Array([0x7b, 0xff, 0xfe, 0x7d])))).toBe(400);
    expect(decodeUtf8(new TextEncoder().encode('{"a":"é"}'))).toBe('{"a":"é"}');
  });
  it('reads a repeated query key as a list', () => {
    expect(formParams('s=a&s=b&s=c&t=1')).toEqual({ s: ['a', 'b', 'c'], t: '1' });
  });
  it('reads media types without their parameters', () => {
    expect(mediaTypeOf('Application/JSON; charset=utf-8')).toBe('application/json');
    expect(mediaTypeOf(undefined)).toBeUndefined();
  });
});

describe('mergeParams', () => {
  it('lets the body win over the query, and the path over both', () => {
    expect(mergeParams({ id: 'q', a: '1' }, { id: 'b', b: '2' }, { id: 'p' })).toEqual({ id: 'p', a: '1', b: '2' });
  });
  it('never lets a __proto__ key reach an object prototype', () => {
    const merged = mergeParams(JSON.parse('{"__proto__":{"polluted":true},"a":1}'), formParams('__proto__=x'));
    expect(merged).toEqual({ a: 1 });
    expect(Object.getPrototypeOf(merged)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
  it('reads keys named like object built-ins as plain values', () => {
    expect(formParams('constructor=x&toString=y&toString=z')).toEqual({ constructor: 'x', toString: ['y', 'z'] });
  });
});
