import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { BadRequest } from '../calls/errors.ts';
import { MAX_FLATTENED_KEYS, MAX_PARAM_JSON_DEPTH } from '../calls/input-limits.ts';
import { readParams } from './read.ts';
import { epoch, flag, jsonObject, list, text, whole, wireParams, word } from './wire.ts';

const read = (shape: Parameters<typeof wireParams>[0], raw: Record<string, unknown>, flattened: string[] = []) => readParams(wireParams(shape, { flattened }), raw) as Record<string, unknown>;
const refusal = (shape: Parameters<typeof wireParams>[0], raw: Record<string, unknown>, flattened: string[] = []) => {
  try {
    read(shape, raw, flattened);
  } catch (e) {
    expect(e).toBeInstanceOf(BadRequest);
    return (e as Error).message;
  }
  throw new Error('read without a 400');
};

describe('the wire spellings, read by the schemas', () => {
  test.prop([fc.nat({ max: 4_102_444_800 })])('an epoch time in seconds reads the same as a number or as text', (s) => {
    expect(read({ t: epoch() }, { t: s })['t']).toBe(s);
    expect(read({ t: epoch() }, { t: String(s) })['t']).toBe(s);
  });

  it('treats an absent, empty or null value as not given, and refuses a negative or fractional time naming it', () => {
    expect(read({ t: epoch().optional() }, { t: '' })['t']).toBeUndefined();
    expect(read({ t: epoch().optional() }, { t: null })['t']).toBeUndefined();
    expect(refusal({ t: epoch() }, {})).toBe("Missing param 't'");
    expect(refusal({ t: epoch() }, { t: '' })).toBe("Missing param 't'");
    expect(refusal({ t: epoch() }, { t: -1 })).toBe('t must be at least 0');
    expect(refusal({ t: epoch() }, { t: '1.5' })).toBe('t must be a whole number');
    expect(refusal({ n: whole({ max: 5 }) }, { n: 6 })).toBe('n must be at most 5');
  });

  test.prop([fc.constantFrom(1, '1', 'true', 'True', true), fc.constantFrom(0, '0', 'false', 'False', false)])('booleans as 1/0, true/false and True/False', (yes, no) => {
    expect(read({ b: flag() }, { b: yes })['b']).toBe(true);
    expect(read({ b: flag() }, { b: no })['b']).toBe(false);
  });

  it('refuses another boolean spelling, an unknown word, and over-long text, naming the parameter', () => {
    expect(refusal({ b: flag() }, { b: 'yes' })).toBe('b must be 1, 0, true or false');
    expect(refusal({ w: word(['asc', 'desc']) }, { w: 'up' })).toBe('w is invalid; valid values are: asc,desc');
    expect(read({ w: word(['asc', 'desc'], { caseless: true }) }, { w: 'DESC' })['w']).toBe('desc');
    expect(refusal({ s: text({ max: 3 }) }, { s: 'long' })).toBe('s must be at most 3 characters');
    expect(read({ s: text() }, { s: 42 })['s']).toBe('42');
  });

  it('reads an object given as itself, as JSON text, or flattened into name.key entries', () => {
    const shape = { output_params: jsonObject() };
    const want = { format: 'json', auth: { type: 'basic' } };
    expect(read(shape, { output_params: want }, ['output_params'])['output_params']).toEqual(want);
    expect(read(shape, { output_params: JSON.stringify(want) }, ['output_params'])['output_params']).toEqual(want);
    expect(read(shape, { 'output_params.format': 'json', 'output_params.auth.type': 'basic' }, ['output_params'])['output_params']).toEqual(want);
    expect(refusal(shape, { output_params: '{"a":' }, ['output_params'])).toBe('output_params must be valid JSON');
    expect(refusal(shape, { output_params: '[1]' }, ['output_params'])).toBe('output_params must be a JSON object');
  });

  it('bounds what it folds and parses: flattened keys, nesting of text and of objects', () => {
    const shape = { p: jsonObject() };
    const many = Object.fromEntries(Array.from({ length: MAX_FLATTENED_KEYS + 1 }, (_, i) => [`p.k${i}`, i]));
    expect(refusal(shape, many, ['p'])).toBe(`p has more than the limit of ${MAX_FLATTENED_KEYS} flattened keys`);
    const deepText = '['.repeat(MAX_PARAM_JSON_DEPTH + 1) + ']'.repeat(MAX_PARAM_JSON_DEPTH + 1);
    expect(refusal(shape, { p: `{"a":${deepText}}` }, ['p'])).toBe(`p nests deeper than the limit of ${MAX_PARAM_JSON_DEPTH} levels`);
    let deep: unknown = 1;
    for (let i = 0; i < MAX_PARAM_JSON_DEPTH + 1; i++) deep = { d: deep };
    expect(refusal(shape, { p: deep }, ['p'])).toBe(`p nests deeper than the limit of ${MAX_PARAM_JSON_DEPTH} levels`);
  });

  it('never lets a flattened key reach a prototype', () => {
    const p = read({ p: jsonObject() }, { 'p.__proto__.polluted': 1, 'p.ok': 2 }, ['p'])['p'] as Record<string, unknown>;
    expect(p).toEqual({ ok: 2 });
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });

  it('reads a list as an array, JSON text or a comma string, and drops keys the schema does not name', () => {
    const shape = { sources: list(text()) };
    expect(read(shape, { sources: ['a', 'b'] })['sources']).toEqual(['a', 'b']);
    expect(read(shape, { sources: '["a","b"]' })['sources']).toEqual(['a', 'b']);
    expect(read(shape, { sources: ' a, b,,' })['sources']).toEqual(['a', 'b']);
    expect(read(shape, { sources: 'a', service: 'echoed' })).toEqual({ sources: ['a'] });
    expect(refusal(shape, { sources: { a: 1 } })).toBe('sources must be a list');
  });
});
