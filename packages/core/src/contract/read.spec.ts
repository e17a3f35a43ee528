import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { termsOf } from './contract.ts';
import { readParams } from './read.ts';

const analyze = termsOf('insight.analyze', '1.5').params;
const params = (id: string, threshold: number) => ({ id, parameters: { analysis_type: 'freqDist', parameters: { target: 'fb.author.age', threshold } } });
const frozen = <T>(v: T): T => {
  if (v && typeof v === 'object') {
    for (const k of Object.keys(v)) frozen((v as Record<string, unknown>)[k]);
    Object.freeze(v);
  }
  return v;
};

describe('reading frozen parameters', () => {
  test.prop([fc.stringMatching(/^[0-9a-f]{32}$/), fc.integer({ min: 1, max: 200 })])(
    'deeply frozen parameters read twice give the first reading, frozen, equal to a fresh reading of a copy',
    (id, threshold) => {
      const raw = frozen(params(id, threshold));
      const first = readParams(analyze, raw);
      expect(readParams(analyze, raw)).toBe(first);
      expect(Object.isFrozen(first)).toBe(true);
      expect(first).toEqual(readParams(analyze, params(id, threshold)));
    },
  );

  it('parameters that can still change (not frozen, or frozen only on top) are read afresh every call', () => {
    const open = params('a'.repeat(32), 5);
    const first = readParams(analyze, open);
    open.parameters.parameters.threshold = 7;
    expect(readParams(analyze, open)).not.toBe(first);
    const shallow = Object.freeze(params('b'.repeat(32), 5));
    readParams(analyze, shallow);
    shallow.parameters.parameters.threshold = 9;
    expect(readParams(analyze, shallow)).toEqual(readParams(analyze, params('b'.repeat(32), 9)));
  });

  it('frozen parameters a schema refuses are refused every time', () => {
    const raw = frozen(params('a'.repeat(32), 201));
    expect(() => readParams(analyze, raw)).toThrow(/threshold must be at most 200/);
    expect(() => readParams(analyze, raw)).toThrow(/threshold must be at most 200/);
  });
});
