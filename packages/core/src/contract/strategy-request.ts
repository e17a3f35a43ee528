import * as z from 'zod';
import { MISSING, jsonValue, list, text, whole, word } from './wire.ts';

/**
 * A strategy task's `parameters` as clients send them (docs/clients.md#tasks), as a schema: what the
 * request alone decides (the shapes, the word lists, the counts) is said here, so the OpenAPI documents
 * show it and the task is read through it. What depends on the service (its strategies, its reference
 * sets and their values) is judged by `validateStrategyRequest`.
 */

export const STRATEGY_VERSIONS = [1] as const;
/** Groups a strategy shows at most. */
export const STRATEGY_MAX_GROUPS = 10;
/** Values one audience dimension or keyword list may name (an `in` or `contains_any` holds at most 100). */
export const STRATEGY_MAX_VALUES = 100;
const MAX_KEYWORD_CHARS = 100;

const values = () => list(text({ min: 1 }), { min: 1, max: STRATEGY_MAX_VALUES }).meta({ description: 'Values of the reference set (docs/clients.md#tasks)', examples: [['legal']] });
const keyword = () =>
  z
    .string({ error: 'must be a string' })
    .max(MAX_KEYWORD_CHARS, { error: `must be a keyword of at most ${MAX_KEYWORD_CHARS} characters, without commas, quotes or backslashes` })
    .regex(/^[^",\\]+$/, { error: `must be a keyword of at most ${MAX_KEYWORD_CHARS} characters, without commas, quotes or backslashes` });
const keywords = () =>
  jsonValue(
    z
      .object({ any: list(keyword(), { min: 1, max: STRATEGY_MAX_VALUES }).optional(), all: list(keyword(), { min: 1, max: STRATEGY_MAX_VALUES }).optional() }, { error: 'must be an object with any and/or all' })
      .refine((k) => k.any !== undefined || k.all !== undefined, { error: 'must be an object with any and/or all' }),
  ).meta({ description: 'Words the audience writes: `any` of them, `all` of them' });

const audience = () =>
  z
    .object({ keywords: keywords().optional() }, { error: MISSING })
    .catchall(values())
    .refine((a) => Object.keys(a).length > 0, { error: MISSING })
    .meta({ description: 'Reference values by set (`{"sectors": ["legal"]}`, ANDed across sets), and/or `keywords`' });

const groups = () =>
  z
    .object({ top: z.record(z.string(), whole({ min: 1, max: STRATEGY_MAX_GROUPS })) }, { error: 'must be {"top": {"<reference set>": <how many>}} with one set' })
    .refine((g) => Object.keys(g.top).length === 1, { error: 'must be {"top": {"<reference set>": <how many>}} with one set' })
    .meta({ description: `Group the audience by the top values of one reference set (at most ${STRATEGY_MAX_GROUPS})` });

/** `insight` is the strategy's name as the Ruby client sends it. */
const named = (raw: unknown): unknown => {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return raw;
  const r = raw as Record<string, unknown>;
  return r.strategy === undefined && r.insight !== undefined ? { ...r, strategy: r.insight } : r;
};

export const strategyRequestSchema = z
  .preprocess(
    named,
    z.object(
      {
        strategy: text({ min: 1 }).meta({ description: "The strategy's name (`insight` is read as it too): top_urls, top_domains, or top_<reference set>", examples: ['top_urls'] }),
        version: whole().default(1).pipe(z.literal(STRATEGY_VERSIONS, { error: `is invalid; valid values are: ${STRATEGY_VERSIONS.join(',')}` })),
        parameters: jsonValue(
          z.object({
            audience: audience(),
            keywords: keywords().optional(),
            comparison_audience: word(['global']).default('global'),
            groups: groups().optional(),
          }),
        ),
        start: whole({ min: 0 }).optional().meta({ description: 'Unix seconds, inclusive' }),
        end: whole({ min: 0 }).optional().meta({ description: 'Unix seconds, exclusive' }),
      },
      { error: 'must be a JSON object' },
    ),
  )
  .check((c) => {
    const { start, end } = c.value;
    if (start !== undefined && end !== undefined && start >= end) c.issues.push({ code: 'custom', message: ': Start cannot be after end', input: c.value });
  })
  .meta({ id: 'StrategyRequest' });

/** A strategy request as its schema reads it, before the service's own terms are judged. */
export type StrategyShape = z.output<typeof strategyRequestSchema>;
