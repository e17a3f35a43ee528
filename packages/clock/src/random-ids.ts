import type { Ids } from '@sdp/core';
import { customAlphabet } from 'nanoid';

const HEX = '0123456789abcdef';

/** Random lowercase hex ids from nanoid, in the lengths the platform uses (20, 32, 40). */
export function randomIds(): Ids {
  const makers = new Map<number, () => string>();
  return {
    hex(length) {
      let make = makers.get(length);
      if (!make) makers.set(length, (make = customAlphabet(HEX, length)));
      return make();
    },
  };
}
