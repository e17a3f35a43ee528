import fc from 'fast-check';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import type { AccessEntry } from '@sdp/http';
import { AccessLines, jsonNumber, jsonString } from './access-line.ts';

/** pino as the access log configures it, writing to an array. */
function pinoLines(): { info(entry: AccessEntry): string } {
  let last = '';
  const logger = pino({ base: null, timestamp: false, formatters: { level: (label) => ({ level: label }) } }, { write: (line: string) => void (last = line) });
  return {
    info: (entry) => {
      logger.info(entry);
      return last;
    },
  };
}

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Strings a client controls, anything from the everyday to quotes, control characters and halves of surrogate pairs. */
const text = (...usual: string[]) => fc.oneof(fc.constantFrom(...usual), fc.string({ unit: 'binary', maxLength: 120 }), fc.string({ unit: fc.constantFrom('"', '\\', '\n', '\u0000', '\u2028', '\ud83d', '\ude00', 'é', 'a'), maxLength: 8 }));
const number = fc.oneof(
  fc.integer({ min: 0, max: 99_999 }).map((h) => h / 100),
  fc.integer({ min: 0, max: 99_999_999_999 }).map((h) => h / 100),
  fc.double(),
  fc.integer(),
  fc.constantFrom(0, -0, 0.1 + 0.2, 1e21, -1e-7, Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY),
);
const entry: fc.Arbitrary<AccessEntry> = fc.record({
  time: text('2026-03-02T08:05:37.123Z', '2026-03-02T08:05:37.124Z'),
  method: text('GET', 'POST', 'DELETE'),
  path: text('/v1.5/validate', '/v1.5/usage', '/'),
  status: fc.oneof(fc.constantFrom(200, 401, 429), fc.integer({ min: 100, max: 599 })),
  ms: number,
  username: fc.option(text('ann', 'bob')),
  cost: fc.option(fc.oneof(fc.constantFrom(1, 25), number)),
});

const hasLoneSurrogate = (e: AccessEntry) => [e.time, e.method, e.path, e.username ?? ''].some((s) => LONE_SURROGATE.test(s));

describe('access lines', () => {
  it('are the text pino writes for the same entries, in any sequence, except that a lone surrogate is escaped where pino writes it raw', () => {
    fc.assert(
      fc.property(fc.array(entry, { minLength: 1, maxLength: 12 }), (entries) => {
        const lines = new AccessLines('info');
        const reference = pinoLines();
        for (const e of entries) {
          const ours = lines.line(e);
          const theirs = reference.info(e);
          expect(ours.endsWith('\n')).toBe(true);
          const parsed = JSON.parse(ours) as Record<string, unknown>;
          // The same fields in the same order with the same values, whatever the strings hold...
          expect(Object.keys(parsed)).toEqual(['level', 'time', 'method', 'path', 'status', 'ms', 'username', 'cost']);
          expect(parsed).toEqual(JSON.parse(theirs));
          // ...and the same text wherever pino's is well-formed UTF-16 (pino leaves a lone surrogate
          // unescaped, and UTF-8 then writes U+FFFD in its place; the line here keeps it as \\uXXXX).
          if (!hasLoneSurrogate(e)) expect(ours).toBe(theirs);
          else expect(parsed.path).toBe(e.path);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('spell a number as String does, and a number that is not finite as null', () => {
    fc.assert(
      fc.property(number, (n) => {
        expect(jsonNumber(n)).toBe(Number.isFinite(n) ? String(n) : 'null');
      }),
      { numRuns: 5000 },
    );
  });

  it('quote a string as JSON.stringify does', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (s) => {
        expect(jsonString(s)).toBe(JSON.stringify(s));
      }),
    );
  });
});
