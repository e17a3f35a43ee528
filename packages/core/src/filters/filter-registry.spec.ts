import { describe, expect, it } from 'vitest';
import { deciderSpec } from '@sdp/testing';
import { filterRegistryDecider, type FilterEvent } from './filter-registry.ts';

const hash = '145ea24a4d83a14ecb9077b831f14809';
const compiled: FilterEvent = { type: 'FilterCompiled', data: { hash, text: 'fb.content contains "x"', at: 1000 } };

describe('the filter registry decider', () => {
  it('given nothing, when a definition is recorded, then FilterCompiled', () => {
    const state = deciderSpec(filterRegistryDecider)
      .given([])
      .when({ type: 'RecordFilter', hash, text: 'fb.content contains "x"', at: 1000 })
      .then([compiled]);
    expect(state).toEqual({ exists: true, hash, text: 'fb.content contains "x"', compiledAt: 1000 });
  });

  it('given it was recorded, when the same hash is recorded again (any spelling), then nothing', () => {
    deciderSpec(filterRegistryDecider)
      .given([compiled])
      .when({ type: 'RecordFilter', hash, text: 'FB.CONTENT contains "x" // again', at: 2000 })
      .then([]);
  });

  it('when the hash is not 32 lowercase hex, then 400', () => {
    deciderSpec(filterRegistryDecider)
      .given([])
      .when({ type: 'RecordFilter', hash: 'XYZ', text: 'fb.type exists', at: 1 })
      .thenThrows(400, /hash must be a valid hash/);
  });
});
