import { describe, expect, it } from 'vitest';
import { fc, test } from '@fast-check/vitest';
import { streamNamer } from './stream-names.ts';

describe('streamNamer', () => {
  test.prop([fc.array(fc.string(), { maxLength: 50 }), fc.integer({ min: 1, max: 8 })])(
    'names are exactly prefix + name, however many names pass through a small memory',
    (names, capacity) => {
      const name = streamNamer('credits:', capacity);
      for (const n of [...names, ...names]) expect(name(n)).toBe(`credits:${n}`);
    },
  );

  it('hands back the same string for the same name while remembered', () => {
    const name = streamNamer('account:');
    const a = name('ada');
    expect(name('ada')).toBe(a);
    expect(name(['a', 'd', 'a'].join(''))).toBe(a);
  });
});
