import { fc, test } from '@fast-check/vitest';
import { expect } from 'vitest';
import { coreTime } from './handlers.ts';

const spelled = (ms: number) => new Date(Math.floor(ms / 1000) * 1000).toISOString().slice(0, 19).replace('T', ' ');

test.prop([fc.array(fc.integer({ min: -62_000_000_000_000, max: 8_000_000_000_000_000 }), { minLength: 1, maxLength: 50 })])(
  "created_at is the call's UTC second as YYYY-MM-DD HH:MM:SS, whatever the order of the calls",
  (times) => {
    for (const ms of times) expect(coreTime(ms)).toBe(spelled(ms));
  },
);

test.prop([fc.integer({ min: 0, max: 4_000_000_000_000 }), fc.array(fc.integer({ min: 0, max: 90_000_000 }), { maxLength: 40 })])(
  'a clock moving forward by any steps, across midnights, spells every second as the slow way does',
  (start, steps) => {
    let ms = start;
    for (const step of steps) {
      ms += step;
      expect(coreTime(ms)).toBe(spelled(ms));
    }
  },
);
