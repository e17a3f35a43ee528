import { fc, test } from '@fast-check/vitest';
import { expect } from 'vitest';
import { utf8Length } from './utf8.ts';

test.prop([fc.string({ unit: 'binary' })])('utf8Length counts the bytes an encoder writes for any well-formed text', (text) => {
  expect(utf8Length(text)).toBe(new TextEncoder().encode(text).length);
});
