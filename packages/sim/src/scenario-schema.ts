import { z } from 'zod';
import { MAX_HASHES_PER_CONNECTION } from '@sdp/core/internal';
import { DEFAULT_PACKAGE, ENDPOINTS, VERSIONS } from '@sdp/core';
import { parseDuration } from './duration.ts';
import { DEFAULT_CURRENCY, DEFAULT_PRICE_PERIOD, PRICE_PERIODS, isCurrency } from './price.ts';

/**
 * The scenario file format, defined once (zod): `validateScenario` checks files against it, the
 * `ScenarioFile` type comes from it, and `sdp sim --schema` prints it as a JSON Schema for editors.
 * What a schema cannot say (names that must refer to something, a burst that must fit its period, the
 * package fields' ranges, which the core's own reader judges) is checked after it, in `scenario.ts`.
 */

const DURATION_MESSAGE = 'must be a duration such as 500ms, 30s, 15m, 3h, 7d, 2w or 1mo';

/** `90m`, `3h`, `1h30m`, `2w`, `1mo`, or a number of seconds. */
const duration = z
  .union([z.string(), z.number()], { error: (issue) => (issue.input === undefined ? 'is required' : DURATION_MESSAGE) })
  .refine((v) => parseDuration(v) !== undefined, { error: DURATION_MESSAGE })
  .meta({ description: 'A duration: 500ms, 30s, 15m, 3h, 7d, 2w, 1mo (30 days), 1h30m; or a number of seconds', examples: ['90m', '3h', '7d'] });

const text = z.string().min(1);
const whole = z.number().int();
const version = z.enum(VERSIONS.map((v) => v.id) as [string, ...string[]]);
const endpoint = text.meta({ description: 'A catalogue id', examples: [...new Set(ENDPOINTS.map((e) => e.id))].slice(0, 40) });
const params = z.record(z.string(), z.unknown());

/** A strict object: an unknown field is refused, so a typo does not silently keep a default. */
function fields<T extends z.ZodRawShape>(shape: T, description?: string) {
  const known = Object.keys(shape).join(', ');
  const o = z.strictObject(shape, { error: (issue) => (issue.code === 'unrecognized_keys' ? `is not a field here; fields are ${known}` : undefined) });
  return description ? o.meta({ description }) : o;
}

const AMOUNT_MESSAGE = 'must be an amount, 0 or more';
const PRICE_MESSAGE = `must be an amount (${DEFAULT_CURRENCY} a ${DEFAULT_PRICE_PERIOD}) or {amount, currency, per}`;
const amount = z.number({ error: (issue) => (issue.input === undefined ? 'is required' : AMOUNT_MESSAGE) }).min(0, { error: AMOUNT_MESSAGE });

/**
 * What a package costs the buyer: `600` (US dollars a month), or `{amount: 600, currency: EUR, per: year}`.
 * The report names the cheapest package that serves and what it saves against the others.
 */
const price = z
  .union(
    [
      amount,
      fields({
        amount,
        currency: z
          .string()
          .regex(/^[A-Z]{3}$/, { error: 'must be an ISO 4217 currency code in capitals, such as USD, EUR or GBP', abort: true })
          .refine(isCurrency, { error: 'is not an ISO 4217 currency code; codes are such as USD, EUR or GBP' })
          .optional()
          .meta({ description: `ISO 4217 currency code (default ${DEFAULT_CURRENCY})`, examples: ['USD', 'EUR', 'GBP'] }),
        per: z.enum(PRICE_PERIODS).optional().meta({ description: `The period the amount pays for (default ${DEFAULT_PRICE_PERIOD})` }),
      }),
    ],
    { error: PRICE_MESSAGE },
  )
  .meta({
    description: `What the package costs the buyer: an amount (${DEFAULT_CURRENCY} a ${DEFAULT_PRICE_PERIOD}) or {amount, currency, per}. The report names the cheapest package that serves and its saving against the others`,
    examples: [600, { amount: 600, currency: 'USD', per: 'month' }],
  });

/** The operator's package fields, as the core reads them, and the buyer's price beside them. */
const packageFields = fields(
  {
    ...Object.fromEntries(
      Object.entries(DEFAULT_PACKAGE).map(([k, v]) => [k, Array.isArray(v) ? z.array(z.string()).optional() : whole.min(0).optional()]),
    ),
    price: price.optional(),
  },
  'Package fields (unset fields take the defaults)',
);

const steady = fields({ type: z.literal('steady'), rate: z.number().positive(), per: z.enum(['second', 'minute', 'hour', 'day']).optional() }, 'rate calls per second, minute, hour or day');
const burst = fields({ type: z.literal('burst'), size: whole.min(1), every: duration, spacing: duration.optional() }, 'size calls, spacing apart, every period');
const daily = fields(
  { type: z.literal('daily'), hourly: z.array(z.number().min(0, { error: 'must be a number of calls, 0 or more' })).length(24, { error: 'must list 24 figures, the calls in each hour of the day' }), utc_offset_hours: whole.min(-12, { error: 'must be a whole number from -12 to 14' }).max(14, { error: 'must be a whole number from -12 to 14' }).optional() },
  'calls in each hour of the day (24 figures), spread evenly',
);
const once = fields({ type: z.literal('once'), at: z.array(duration) }, 'calls at these offsets from the start');
export const scheduleSchema = z.discriminatedUnion('type', [steady, burst, daily, once]);

const retry = fields({
  on: z.array(whole.min(400, { error: 'must be an HTTP status from 400 to 599' }).max(599, { error: 'must be an HTTP status from 400 to 599' })).optional(),
  max_attempts: whole.min(1).optional(),
  backoff: z.enum(['exponential', 'reset']).optional(),
  base: duration.optional(),
  factor: z.number().positive().optional(),
  max_delay: duration.optional(),
});

const setupCall = fields({ as: text.optional(), endpoint, version: version.optional(), params: params.optional() });

const actorBase = { name: text.optional(), account: text.optional(), start: duration.optional(), stop: duration.optional() };
const callsActor = fields(
  {
    ...actorBase,
    kind: z.literal('calls').optional(),
    schedule: scheduleSchema.optional(),
    endpoint: endpoint.optional(),
    version: version.optional(),
    params: params.optional(),
    body: fields({ interactions: whole.min(1), template: params.optional() }).optional(),
    media_type: text.optional(),
    setup: z.array(setupCall).optional(),
    retry: retry.optional(),
  },
  'Calls to an endpoint on a schedule (kind: calls, the default)',
);
/** How a stream actor connects (see `StreamActor.transport`). */
export const STREAM_ACTOR_TRANSPORTS = ['websocket', 'http', 'http-multi'] as const;
export type StreamActorTransport = (typeof STREAM_ACTOR_TRANSPORTS)[number];

const streamActor = fields(
  {
    ...actorBase,
    kind: z.literal('stream'),
    schedule: scheduleSchema.meta({ description: 'When it (re)connects: each time it opens a new connection and subscribes to every hash again' }),
    hashes: whole.min(1).max(MAX_HASHES_PER_CONNECTION).optional().meta({ description: 'How many hashes it streams (filters of its own that nothing matches)' }),
    filters: z.array(text).min(1).max(MAX_HASHES_PER_CONNECTION).optional().meta({ description: 'The CSDL of each hash it streams, compiled at its start' }),
    cost: whole.min(1).optional().meta({ description: 'Deprecated: read as hashes: cost / 5', deprecated: true }),
    transport: z.enum(STREAM_ACTOR_TRANSPORTS).optional().meta({ description: 'websocket (the default): one connection for all its hashes; http-multi: one GET /multi?hashes= for all; http: one GET /<hash> a hash, each a connection of stream_connections' }),
  },
  'A stream consumer through the real stream\'s decisions: subscriptions charge the general allowance (5 credits each)',
);
const firehoseActor = fields(
  { ...actorBase, kind: z.literal('firehose'), service: text.optional(), per_minute: whole.min(1), seed: whole.optional(), every: duration.optional() },
  "The core's synthetic firehose for the account's running recordings",
);

/** An actor is read by its `kind` (calls when absent). */
export const actorSchemas = { calls: callsActor, stream: streamActor, firehose: firehoseActor };
const actor = z.union([callsActor, streamActor, firehoseActor]);

const account = fields({ username: text.regex(/^[A-Za-z0-9_.@-]{1,64}$/, { error: 'must be 1 to 64 letters, digits or _ . @ -' }), api_key: text.optional(), package: z.union([text, packageFields]).optional() });

export const scenarioFileSchema = fields({
  name: text.optional(),
  start: z.union([z.iso.datetime({ offset: true }), z.date()], { error: 'must be an ISO date-time such as 2026-01-05T08:00:00Z' }).optional().meta({ description: 'ISO instant of the first moment', examples: ['2026-01-05T08:00:00Z'] }),
  duration,
  seed: whole.optional(),
  version: version.optional(),
  limiting_day: z.enum(['pst', 'america-los-angeles']).optional(),
  packages: z.record(z.string(), packageFields).optional(),
  compare: z.array(text).optional(),
  refusal_budget: whole.min(0).optional().meta({ description: 'Refusals a package may leave and still be named as serving' }),
  accounts: z.array(account).min(1),
  actors: z.array(actor).min(1),
});

/** A scenario file as written (before defaults and cross-checks). */
export type ScenarioFile = z.input<typeof scenarioFileSchema>;

/** The format as a JSON Schema (draft 2020-12), for editors completing and checking YAML scenario files. */
export function scenarioJsonSchema(): Record<string, unknown> {
  return {
    ...z.toJSONSchema(scenarioFileSchema, { io: 'input', unrepresentable: 'any' }),
    title: 'sdp sim scenario',
    description: 'A billing scenario for `sdp sim`: accounts, their packages, and actors calling on schedules.',
  };
}
