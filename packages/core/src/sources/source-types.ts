import { BadRequest } from '../calls/errors.ts';
import { own } from '../calls/input-limits.ts';

export interface SourceType {
  /** What the type is called in the category listing. */
  title: string;
  category: 'social' | 'ingestion';
  /** Whether the source reads with a user's token, so create needs at least one auth entry. */
  needsAuth: boolean;
  /** Keys every resource's `parameters` must hold. */
  resourceKeys: string[];
  /** Settings in `parameters` that must be booleans when present. */
  flags: string[];
}

/** The source types real clients create (docs/clients.md#managed-source-calls, docs/clients.md#managed-source). */
export const SOURCE_TYPES: Record<string, SourceType> = {
  facebook_page: {
    title: 'Facebook Pages',
    category: 'social',
    needsAuth: true,
    resourceKeys: ['id'],
    flags: ['posts_by_others', 'comments', 'comment_counts', 'like_counts', 'share_counts', 'page_likes', 'tagged'],
  },
  instagram: { title: 'Instagram', category: 'social', needsAuth: true, resourceKeys: ['type', 'value'], flags: ['comments', 'like_count', 'comment_count'] },
  googleplus: { title: 'Google+', category: 'social', needsAuth: true, resourceKeys: ['id'], flags: ['comments'] },
  yammer: { title: 'Yammer', category: 'social', needsAuth: true, resourceKeys: ['id'], flags: [] },
  twitter_gnip: { title: 'Gnip activities (ingestion)', category: 'ingestion', needsAuth: false, resourceKeys: ['mapping'], flags: [] },
};

export interface SourceAuthInput {
  expires_at: number | null;
  parameters: Record<string, unknown>;
}

export interface SourceResourceInput {
  parameters: Record<string, unknown>;
}


export function sourceTypeOf(name: string | undefined): SourceType {
  if (name === undefined) throw new BadRequest("Missing param 'source_type'");
  const type = own(SOURCE_TYPES, name);
  if (!type) throw new BadRequest(`source_type ${name} is not supported; supported: ${Object.keys(SOURCE_TYPES).join(', ')}`);
  return type;
}

/** An auth or resource entry as the schema reads it (contract/params.ts): `parameters` an object. */
export interface SourceEntry {
  parameters: Record<string, unknown>;
  expires_at?: number | undefined;
}

/**
 * The type's settings: `parameters` as the schema reads it (an object, or `[]` as clients send an empty
 * one); the type's flags must be booleans (1/0 and their strings are read as such).
 */
export function readSourceParameters(value: Record<string, unknown> | readonly [] | undefined, type: SourceType): Record<string, unknown> | undefined {
  if (value === undefined) return undefined;
  if (Array.isArray(value)) return {};
  const out: Record<string, unknown> = { ...value };
  for (const flag of type.flags) {
    const v = out[flag];
    if (v === undefined) continue;
    if (v === true || v === 1 || v === '1' || v === 'true') out[flag] = true;
    else if (v === false || v === 0 || v === '0' || v === 'false') out[flag] = false;
    else throw new BadRequest(`parameters.${flag} must be true or false`);
  }
  return out;
}

/** Resources: each holds the keys its source type needs. */
export function readResources(list: readonly SourceEntry[] | undefined, name: string, type: SourceType): SourceResourceInput[] | undefined {
  if (list === undefined) return undefined;
  return list.map(({ parameters }, i) => {
    for (const key of type.resourceKeys) {
      const v = parameters[key];
      if (v === undefined || v === null || v === '') throw new BadRequest(`${name}[${i}].parameters.${key} is required`);
    }
    return { parameters };
  });
}

/**
 * Auth entries. "Authentication succeeds" when each carries a token (`parameters.value`, a non-empty
 * string) that has not expired: the platform has no upstream to ask, so it judges the token as given.
 */
export function readAuth(list: readonly SourceEntry[] | undefined, name: string, now: number): SourceAuthInput[] | undefined {
  if (list === undefined) return undefined;
  return list.map(({ parameters, expires_at: exp }, i) => {
    const token = parameters['value'];
    if (typeof token !== 'string' || token.trim() === '') throw new BadRequest(`Authentication failed: ${name}[${i}].parameters.value must hold the access token`);
    if (exp !== undefined && exp * 1000 <= now) throw new BadRequest(`Authentication failed: ${name}[${i}] expired at ${exp}`);
    return { expires_at: exp ?? null, parameters };
  });
}
