import { DomainError } from '@sdp/core';
import { z } from 'zod';

/**
 * The request bodies the operator API reads itself, as zod schemas: a body that does not fit answers 400
 * naming each field that is wrong. What the core judges (a package's fields, a firehose's options, a
 * semantic fault) is handed to it as sent and refused there, in one place.
 */

const wholeCredits = z.int({ error: 'must be a whole number of credits, 0 or more' }).min(0, { error: 'must be a whole number of credits, 0 or more' });

/** POST /_admin/accounts: the package, when sent, is the core's to judge. */
export const OpenAccountBody = z.object({
  username: z.string({ error: 'is required (a string)' }).min(1, { error: 'is required (a string)' }),
  api_key: z.string({ error: 'must be a string' }).nullish(),
  package: z.unknown().optional(),
});

/** POST /_admin/accounts/NAME/deny */
export const DenyBody = z.object({ reason: z.string({ error: 'must be a string' }).default('denied by the operator') });

/** POST /_admin/accounts/NAME/charge: a stream charge against the general allowance. */
export const ChargeBody = z.object({
  cost: wholeCredits,
  product: z.literal('stream', { error: 'must be "stream" (the stream product shares the general allowance)' }).optional(),
});

/** POST /_admin/clock: one of the two. */
export const ClockMoveBody = z
  .object({ advance_ms: z.number({ error: 'must be a number of milliseconds' }).optional(), to: z.number({ error: 'must be a Unix time in milliseconds' }).optional() })
  .refine((b) => (b.advance_ms === undefined) !== (b.to === undefined), { error: 'send {"advance_ms": N} or {"to": <unix ms>}, one of the two' });

/** POST /_admin/faults/seed */
export const FaultSeedBody = z.object({ seed: z.int({ error: 'must be a whole number' }) });

/** The body as the schema reads it, or a 400 naming every field that does not fit (`cost: must be ...`). */
export function readBody<S extends z.ZodType>(schema: S, body: unknown): z.output<S> {
  const read = schema.safeParse(body);
  if (read.success) return read.data;
  throw new DomainError(400, read.error.issues.map((i) => (i.path.length > 0 ? `${i.path.join('.')}: ${i.message}` : i.message)).join('; '));
}
