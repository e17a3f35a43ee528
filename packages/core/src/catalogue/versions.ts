/**
 * The API versions and their breaking changes (docs/contract.md#versions). A version is chosen by the URL prefix;
 * `/v1/...` and no prefix both mean 1.0.
 */
export type VersionId = '1.0' | '1.1' | '1.2' | '1.3' | '1.4' | '1.5';

export interface ApiVersion {
  id: VersionId;
  /** Release date (ISO day). A version is supported at least 12 months after it. */
  released: string;
  breakingChanges: string[];
  /** Set when a deprecation is announced (at least 3 months before the sunset). */
  deprecation?: { announced: string; sunset: string };
}

export const VERSIONS: readonly ApiVersion[] = [
  { id: '1.0', released: '2014-01-14', breakingChanges: [] },
  {
    id: '1.1',
    released: '2014-10-01',
    breakingChanges: ['/usage and /balance answer {} instead of [] when empty'],
  },
  {
    id: '1.2',
    released: '2015-06-01',
    breakingChanges: [
      'Rate-limit refusals answer 429 instead of 403',
      'push/create rejects playback_id with 400 (before 1.2 it is a synonym of historics_id)',
    ],
  },
  {
    id: '1.3',
    released: '2015-11-01',
    breakingChanges: [
      'Insight recordings are named by id (a recording id) instead of hash',
      '/insight/start returns {"id": ...}',
    ],
  },
  {
    id: '1.4',
    released: '2016-05-01',
    breakingChanges: ['Insight endpoints are also served under /insight/{service}/...'],
  },
  {
    id: '1.5',
    released: '2017-01-10',
    breakingChanges: [
      'Task list and task get are also served as /insight/{service}/task/{type} and /insight/{service}/task/{type}/{id}',
    ],
  },
];

export const CURRENT_VERSION: VersionId = '1.5';

const ORDER = new Map(VERSIONS.map((v, i) => [v.id, i]));

/** Compares two versions: negative when a is older. */
export function compareVersions(a: VersionId, b: VersionId): number {
  return ORDER.get(a)! - ORDER.get(b)!;
}

export function atLeast(version: VersionId, min: VersionId): boolean {
  return compareVersions(version, min) >= 0;
}

/**
 * Reads a URL version prefix (`v1.5`, `v1`) into a version; `undefined` for no prefix (1.0),
 * `null` for a prefix that names no supported version (404).
 */
export function parseVersionPrefix(segment: string): VersionId | null {
  // Canonical forms only (`v1`, `v1.5`): `v1.05` or `v01.5` would otherwise alias `v1.5`.
  const m = /^v(0|[1-9]\d*)(?:\.(0|[1-9]\d*))?$/.exec(segment);
  if (!m) return null;
  const id = `${Number(m[1])}.${m[2] === undefined ? 0 : Number(m[2])}`;
  return ORDER.has(id as VersionId) ? (id as VersionId) : null;
}

export function findVersion(id: VersionId): ApiVersion {
  return VERSIONS[ORDER.get(id)!]!;
}

/** Whether a segment looks like a version prefix at all (so `/v9.9/...` is 404, not an unknown path). */
export function looksLikeVersion(segment: string): boolean {
  return /^v\d+(\.\d+)?$/.test(segment);
}
