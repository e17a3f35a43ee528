import { BadRequest } from '../calls/errors.ts';

/** How a pull subscription's pages are written (docs/clients.md#core-calls-and-pull). */
export const PULL_FORMATS = ['json_new_line', 'json_array', 'json_meta'] as const;
export type PullFormat = (typeof PULL_FORMATS)[number];

type Check = (value: unknown) => string | null;

interface OutputType {
  /** Dotted paths that must hold a non-empty value. */
  required: string[];
  /** Extra checks on named paths, whether required or not. */
  checks?: Record<string, Check>;
}

const nonNegativeInt: Check = (v) => (readInt(v) !== undefined && readInt(v)! >= 0 ? null : 'must be a whole number of at least 0');
const positiveInt: Check = (v) => (readInt(v) !== undefined && readInt(v)! > 0 ? null : 'must be a whole number of at least 1');
const port: Check = (v) => (readInt(v) !== undefined && readInt(v)! >= 1 && readInt(v)! <= 65535 ? null : 'must be a port number from 1 to 65535');
const oneOf = (...words: string[]): Check => (v) => (typeof v === 'string' && words.includes(v) ? null : `must be one of ${words.join(', ')}`);
const httpUrl: Check = (v) => (typeof v === 'string' && /^https?:\/\/[^\s/]+/i.test(v) ? null : 'must be an http:// or https:// URL');
const format = oneOf(...PULL_FORMATS);

const common = { format, max_size: positiveInt, delivery_frequency: nonNegativeInt };

/**
 * The connectors a subscription can deliver to, with the settings each needs. Delivery itself happens
 * outside the core; only `pull` is served here, and the others are kept as configured.
 */
export const OUTPUT_TYPES: Record<string, OutputType> = {
  pull: { required: [], checks: { format, max_size: positiveInt } },
  http: {
    required: ['url'],
    checks: {
      ...common,
      url: httpUrl,
      'auth.type': oneOf('none', 'basic'),
      method: oneOf('post', 'put', 'POST', 'PUT'),
      compression: oneOf('none', 'gzip'),
      verify_ssl: (v) => (typeof v === 'boolean' || v === 'true' || v === 'false' ? null : 'must be true or false'),
    },
  },
  s3: {
    required: ['bucket', 'auth.access_key', 'auth.secret_key'],
    checks: { ...common, acl: oneOf('private', 'public-read', 'public-read-write', 'authenticated-read', 'bucket-owner-read', 'bucket-owner-full-control') },
  },
  ftp: { required: ['host', 'auth.username', 'auth.password'], checks: { ...common, port } },
  sftp: { required: ['host', 'auth.username', 'auth.password'], checks: { ...common, port } },
  mysql: { required: ['host', 'database', 'auth.username', 'auth.password', 'mapping'], checks: { port } },
  elasticsearch: { required: ['host', 'index'], checks: { port } },
  mongodb: { required: ['host', 'database', 'collection'], checks: { port } },
  redis: { required: ['host', 'port', 'database'], checks: { port, database: nonNegativeInt } },
  dynamodb: { required: ['table', 'region', 'auth.access_key', 'auth.secret_key'] },
  couchdb: { required: ['host', 'db_name'], checks: { port } },
  bigquery: { required: ['project_id', 'dataset_id', 'table_id', 'auth.client_id', 'auth.service_account', 'auth.key_file'] },
  splunk: { required: ['host', 'auth.username', 'auth.password'], checks: { ...common, port } },
};

/**
 * Checks an output type and its settings; answers a 400 naming the first problem. Returns the settings
 * as they will be kept.
 */
export function validateOutput(outputType: string | undefined, params: Record<string, unknown> | undefined): Record<string, unknown> {
  if (outputType === undefined) throw new BadRequest("Missing param 'output_type'");
  const type = OUTPUT_TYPES[outputType];
  if (!type) throw new BadRequest(`output_type ${outputType} is not supported; supported: ${Object.keys(OUTPUT_TYPES).join(', ')}`);
  const settings = params ?? {};
  if (params === undefined && type.required.length > 0) throw new BadRequest("Missing param 'output_params'");
  for (const path of type.required) {
    const v = at(settings, path);
    if (v === undefined || v === null || v === '') throw new BadRequest(`output_params.${path} is required for output_type ${outputType}`);
  }
  for (const [path, check] of Object.entries(type.checks ?? {})) {
    const v = at(settings, path);
    if (v === undefined || v === null || v === '') continue;
    const problem = check(v);
    if (problem) throw new BadRequest(`output_params.${path} ${problem}`);
  }
  return settings;
}

/** The page format a pull subscription was created with (json_new_line when none was given). */
export function pullFormatOf(params: Record<string, unknown>): PullFormat {
  const f = params['format'];
  return typeof f === 'string' && (PULL_FORMATS as readonly string[]).includes(f) ? (f as PullFormat) : 'json_new_line';
}

function at(obj: Record<string, unknown>, path: string): unknown {
  let node: unknown = obj;
  for (const key of path.split('.')) {
    if (typeof node !== 'object' || node === null) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

function readInt(v: unknown): number | undefined {
  if (typeof v === 'number' && Number.isSafeInteger(v)) return v;
  if (typeof v === 'string' && /^\s*-?\d+\s*$/.test(v)) return Number(v);
  return undefined;
}
