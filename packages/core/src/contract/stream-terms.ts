import * as z from 'zod';

/**
 * What the stream's actions read and answer (internal endpoints: their transports, or the operator,
 * build these calls, no client does). Declared once here, as every REST endpoint's terms are, so the handlers read typed
 * parameters and a malformed action is a 400 naming its field.
 */
const connection = z.string().regex(/^[0-9a-f]{1,64}$/, 'must be a connection id');
const hash = z.string().regex(/^[0-9a-fA-F]{32}$/, 'must be a 32-character hash');
const transport = z.enum(['websocket', 'http', 'http-duplex']);
/** Delivered counts: minute → hash → licence type → count; checked in full by the aggregate. */
const minutes = z.record(z.string(), z.record(z.string(), z.record(z.string(), z.number())));

export const streamParams = {
  open: () => z.object({ transport, host: z.string().min(1).max(64).optional() }),
  subscribe: () => z.object({ connection, hash }),
  unsubscribe: () => z.object({ hash }),
  deliveries: () => z.object({ minutes }),
  close: () => z.object({ reason: z.string().max(200) }),
  /** The operator's charge: the credits it states, drawn from the general allowance. */
  charge: () => z.object({ cost: z.int('must be a whole number of credits, 0 or more').min(0, 'must be a whole number of credits, 0 or more') }),
};

export const streamAnswers = {
  opened: z.object({ connection: z.string() }),
  subscribed: z.object({ hash: z.string(), seq: z.number().int(), charged: z.boolean() }),
  changed: z.object({ changed: z.boolean() }),
  closed: z.object({ changed: z.boolean(), hosts: z.array(z.string()) }),
  /** What was charged; the allowance after it is the answer's rate figures. */
  charged: z.object({ product: z.literal('stream'), cost: z.number().int() }),
};
