import { BadRequest } from '../calls/errors.ts';
import { isJsonObject, parseJson, type Params } from '../calls/params.ts';
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

/**
 * `parameters`: an object (or `[]`, as clients send an empty one), possibly as JSON text (docs/clients.md#how-parameters-travel). Flags must be booleans (1/0 and their strings are read as such).
 */
export function readSourceParameters(p: Params, type: SourceType): Record<string, unknown> | undefined {
  const raw = p.raw['parameters'];
  let value: unknown = raw;
  if (typeof raw === 'string') value = raw.trim() === '' ? undefined : parseJson('parameters', raw);
  if (value === undefined || value === null) value = p.object('parameters');
  if (value === undefined) return undefined;
  if (Array.isArray(value) && value.length === 0) return {};
  if (!isJsonObject(value)) throw new BadRequest('parameters must be a JSON object');
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

/** A list of `{parameters: {...}}` entries, as an array or JSON text of one. */
function entries(p: Params, name: string): Record<string, unknown>[] | undefined {
  const raw = p.raw[name];
  if (raw === undefined || raw === null || raw === '') return undefined;
  const value = typeof raw === 'string' ? parseJson(name, raw) : raw;
  const list = Array.isArray(value) ? value : isJsonObject(value) ? [value] : null;
  if (!list) throw new BadRequest(`${name} must be a list of objects`);
  return list.map((item, i) => {
    if (!isJsonObject(item)) throw new BadRequest(`${name}[${i}] must be an object`);
    const parameters = typeof item['parameters'] === 'string' ? parseJson(`${name}[${i}].parameters`, item['parameters']) : item['parameters'];
    if (!isJsonObject(parameters)) throw new BadRequest(`${name}[${i}].parameters must be an object`);
    return { ...item, parameters };
  });
}

export function readResources(p: Params, name: string, type: SourceType): SourceResourceInput[] | undefined {
  const list = entries(p, name);
  if (list === undefined) return undefined;
  return list.map((item, i) => {
    const parameters = item['parameters'] as Record<string, unknown>;
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
export function readAuth(p: Params, name: string, now: number): SourceAuthInput[] | undefined {
  const list = entries(p, name);
  if (list === undefined) return undefined;
  return list.map((item, i) => {
    const parameters = item['parameters'] as Record<string, unknown>;
    const token = parameters['value'];
    if (typeof token !== 'string' || token.trim() === '') throw new BadRequest(`Authentication failed: ${name}[${i}].parameters.value must hold the access token`);
    const exp = item['expires_at'];
    let expiresAt: number | null = null;
    if (exp !== undefined && exp !== null && exp !== '') {
      const n = typeof exp === 'number' ? exp : typeof exp === 'string' && /^\d+$/.test(exp) ? Number(exp) : NaN;
      if (!Number.isSafeInteger(n)) throw new BadRequest(`${name}[${i}].expires_at must be Unix seconds`);
      if (n * 1000 <= now) throw new BadRequest(`Authentication failed: ${name}[${i}] expired at ${n}`);
      expiresAt = n;
    }
    return { expires_at: expiresAt, parameters };
  });
}

/** A list of ids: an array, JSON text of one, or a comma string. */
export function readIds(p: Params, name: string): string[] {
  const list = p.stringList(name);
  if (!list || list.length === 0) throw new BadRequest(`Missing param '${name}'`);
  return list;
}
