import { ENDPOINTS, VERSIONS, atLeast, findVersion, type Endpoint, type VersionId } from '@sdp/core';
import { answerJsonSchemas, errorJsonSchema, exampleOf, isRefusedParam, paramsJsonSchema, resolveRef, type JsonSchema, type NamedSchemas } from '@sdp/core/internal';

/**
 * The OpenAPI 3.1 document of one API version, generated from the catalogue: every path form the version
 * serves (with the product word the server runs with), its methods, path parameters, success codes, the
 * error codes of the order of judgement (docs/contract.md#judgement-order) over one error schema, the rate-limit fields, the
 * three ways to authenticate, and each operation's cost and allowance as `x-` extensions. Parameters,
 * request bodies and answers are the endpoint's contract (core's `contract/`), as JSON Schema, each
 * answer with an example. Nothing here lists an endpoint or writes a shape: a new catalogue row appears
 * in every document of the versions that serve it, with the schemas its contract gives.
 */
export interface OpenApiOptions {
  /** The product path word (`--product`), read as `insight`. */
  product?: string;
  /** Which rate-limit fields the server sends (`--rate-limit-headers`); `x` by default. */
  rateLimitHeaders?: 'x' | 'ietf' | 'both';
}

type Json = Record<string, unknown>;

const RATE_HEADERS: Record<string, string> = {
  'X-RateLimit-Limit': 'Credits of the allowance this call draws from, per hour.',
  'X-RateLimit-Remaining': 'Credits left in the current window after this call.',
  'X-RateLimit-Cost': 'What this call costs (greater than Remaining on a rate-limit refusal).',
  'X-RateLimit-Reset': 'When the window resets, as Unix seconds.',
  'X-RateLimit-Reset-Ttl': 'Whole seconds until the window resets.',
};

const IETF_HEADERS: Record<string, string> = {
  'RateLimit-Policy': 'IETF httpapi draft: `"<allowance>";q=<credits per window>;w=3600`.',
  RateLimit: 'IETF httpapi draft: `"<allowance>";r=<remaining>;t=<seconds until the reset>`.',
};

const ERROR_TEXT: Record<number, string> = {
  400: 'The parameters are missing or invalid (charged: the call was served).',
  401: 'Credentials missing, unknown username or wrong API key (not charged).',
  403: 'The account is denied for a violation, or (before API 1.2) the allowance is exhausted, or the package does not permit it (not charged unless served).',
  404: 'No such resource (charged: the call was served).',
  409: 'The resource is in a state that does not allow this, or an Idempotency-Key call is still running.',
  410: 'The resource is gone.',
  413: 'The request body is over the limit.',
  415: 'The body is not JSON or a urlencoded form.',
  422: 'The Idempotency-Key was used with other parameters.',
  429: 'The allowance is exhausted: Cost is greater than Remaining (from API 1.2; not charged).',
  500: 'Internal error: nothing was charged.',
  503: 'Too many concurrent writers on this account, or the store is unavailable: retry (nothing was charged).',
};

const pathParamsOf = (template: string): { name: string; only?: string[] }[] =>
  [...template.matchAll(/\{(\w+)(?:=([\w|]+))?\}/g)].map((m) => ({ name: m[1]!, ...(m[2] ? { only: m[2].split('|') } : {}) }));

/** A catalogue template as an OpenAPI path: `{type=a|b}` becomes `{type}`, `/insight` the product word. */
function openApiPath(template: string, product: string): string {
  const path = template.replace(/\{(\w+)=[\w|]+\}/g, '{$1}');
  return product !== 'insight' && path.startsWith('/insight') ? `/${product}${path.slice('/insight'.length)}` : path;
}

function errorCodes(e: Endpoint, version: VersionId, method: string): number[] {
  const codes = new Set<number>([400, 404, 409, 410, 413, 500, 503]);
  if (e.allowance !== 'none' || e.group === 'ingestion') codes.add(401).add(403);
  if (e.allowance === 'general' || e.allowance === 'analyze' || e.allowance === 'task-slots') codes.add(atLeast(version, '1.2') ? 429 : 403);
  if (method === 'POST' || method === 'PUT') codes.add(415);
  if (method !== 'GET') codes.add(422);
  return [...codes].sort((a, b) => a - b);
}

function withoutRefused<S extends { properties: Record<string, JsonSchema>; required?: string[]; oneOf?: { properties: Record<string, JsonSchema>; required?: string[] }[] }>(s: S): S {
  const keep = (props: Record<string, JsonSchema>) => Object.fromEntries(Object.entries(props).filter(([, p]) => !isRefusedParam(p)));
  return { ...s, properties: keep(s.properties), ...(s.oneOf ? { oneOf: s.oneOf.map((o) => ({ ...o, properties: keep(o.properties) })) } : {}) };
}

function operation(e: Endpoint, version: VersionId, method: string, template: string, formIndex: number, style: 'x' | 'ietf' | 'both', named: NamedSchemas): Json {
  const deprecated = findVersion(version).deprecation !== undefined;
  const rated = e.allowance !== 'none';
  const successHeaders: Json = { 'X-API-Version': { $ref: '#/components/headers/X-API-Version' } };
  const rateNames = [...(style !== 'ietf' ? Object.keys(RATE_HEADERS) : []), ...(style !== 'x' ? Object.keys(IETF_HEADERS) : [])];
  if (rated) for (const name of rateNames) successHeaders[name] = { $ref: `#/components/headers/${name}` };
  const responses: Json = {};
  for (const [code, schema] of Object.entries(answerJsonSchemas(e.id, version, e.success, named))) {
    responses[code] =
      schema === null
        ? { description: 'Done; no body.', headers: successHeaders }
        : { description: code === '202' ? 'Accepted.' : 'Success.', headers: successHeaders, content: { 'application/json': { schema, example: exampleOf(schema, 0, named) } } };
  }
  for (const code of errorCodes(e, version, method)) responses[String(code)] = { $ref: `#/components/responses/Error${code}` };
  // A parameter this version refuses is parsed only to say so; the document lists what the version takes.
  const contract = withoutRefused(paramsJsonSchema(e.id, version, named));
  const inPath = pathParamsOf(template);
  const pathNames = new Set(inPath.map((p) => p.name));
  const parameters: Json[] = inPath.map((p) => ({
    name: p.name,
    in: 'path',
    required: true,
    schema: p.only ? { type: 'string', enum: p.only } : stripLenient(resolveRef(contract.properties[p.name] ?? { type: 'string' }, named)),
  }));
  const required = new Set(contract.required ?? []);
  const rest = Object.entries(contract.properties).filter(([name]) => !pathNames.has(name));
  // A GET carries its parameters in the query string; the others in a body (JSON or a form).
  if (method === 'GET') for (const [name, schema] of rest) parameters.push(queryParameter(name, resolveRef(schema, named), required.has(name)));
  if (method !== 'GET') parameters.push({ $ref: '#/components/parameters/IdempotencyKey' });
  const bodyOf = (props: Record<string, JsonSchema>, needed: ReadonlySet<string>): JsonSchema => {
    const names = Object.keys(props).filter((n) => !pathNames.has(n));
    return { type: 'object', properties: Object.fromEntries(names.map((n) => [n, props[n]!])), ...(names.some((n) => needed.has(n)) ? { required: names.filter((n) => needed.has(n)) } : {}) };
  };
  // Terms that depend on one parameter (a task's `type`) are a body of one of their choices.
  const body: JsonSchema = contract.oneOf ? { oneOf: contract.oneOf.map((o) => bodyOf(o.properties, new Set(o.required ?? []))) } : bodyOf(contract.properties, required);
  // Each endpoint's body is one named shape (its forms' bodies differ only where a path takes a parameter).
  const bodyRef = method === 'GET' || e.body === 'raw' ? undefined : { $ref: `#/components/schemas/${nameOnce(named, `${typeName(e.id)}Body`, body)}` };
  const op: Json = {
    operationId: formIndex === 0 ? `${e.id}.${method.toLowerCase()}` : `${e.id}.${method.toLowerCase()}.form${formIndex + 1}`,
    // The form's own path, so a service-scoped form is told apart from the plain one in a list of operations.
    summary: `${method} ${template}`,
    tags: [e.group],
    description: [costLine(e), e.note].filter(Boolean).join(' '),
    parameters,
    responses,
    'x-sdp-endpoint': e.id,
    'x-sdp-cost': e.cost,
    'x-sdp-allowance': e.allowance,
    'x-sdp-source': e.source,
  };
  if (method === 'POST' || method === 'PUT' || method === 'DELETE') {
    op.requestBody =
      e.body === 'raw'
        ? { required: true, content: { 'application/x-ndjson': { schema: { type: 'string' } }, 'application/json': { schema: {} } } }
        : {
            required: rest.some(([n]) => required.has(n)),
            content: { 'application/json': { schema: bodyRef, example: exampleOf(body, 0, named) }, 'application/x-www-form-urlencoded': { schema: bodyRef } },
          };
  }
  if (!rated) op.security = [];
  if (deprecated) op.deprecated = true;
  return op;
}

/** A query parameter from its schema; the spellings it also accepts go in its description. */
function queryParameter(name: string, schema: JsonSchema, required: boolean): Json {
  const lenient = schema['x-sdp-lenient'];
  const description = [schema['description'], lenient ? `Also accepted: ${String(lenient)}.` : undefined].filter(Boolean).join(' ');
  const isObject = schema['type'] === 'object';
  return {
    name,
    in: 'query',
    required,
    ...(description ? { description } : {}),
    // Objects travel as JSON text in a query string.
    ...(isObject ? { content: { 'application/json': { schema: stripLenient(schema) } } } : { schema: stripLenient(schema) }),
  };
}

/** `push.create` → `PushCreate`: an endpoint's name as a type name for generated clients. */
function typeName(id: string): string {
  return id
    .split(/[._-]/)
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join('');
}

/** Puts `schema` under `name` (or `name2`, ... where another shape holds the name) and says which. */
function nameOnce(named: NamedSchemas, name: string, schema: JsonSchema): string {
  const text = JSON.stringify(schema);
  for (let n = 1; ; n++) {
    const candidate = n === 1 ? name : `${name}${n}`;
    const held = named[candidate];
    if (held === undefined) {
      named[candidate] = schema;
      return candidate;
    }
    if (JSON.stringify(held) === text) return candidate;
  }
}

/** A schema without the `x-sdp-lenient` note (said in the parameter's description instead). */
function stripLenient(schema: JsonSchema): JsonSchema {
  const { 'x-sdp-lenient': _, ...rest } = schema;
  return rest;
}

/** What an operation costs, in the reader's words (its `x-sdp-cost` and `x-sdp-allowance` say the same). */
function costLine(e: Endpoint): string {
  if (e.allowance === 'none') return 'Not charged (no rate-limit headers).';
  if (e.allowance === 'task-slots') return `Reports a cost of ${e.cost} credits and draws no allowance: the task-slot queue governs it.`;
  if (e.cost === 0) return `Costs nothing (the ${e.allowance} allowance's figures are reported).`;
  return `Costs ${e.cost} credit${e.cost === 1 ? '' : 's'} of the ${e.allowance} allowance.`;
}

export function openApiDocument(version: VersionId, options: OpenApiOptions = {}): Json {
  const product = options.product ?? 'insight';
  const v = findVersion(version);
  const paths: Record<string, Json> = {};
  // The shapes named in the contract, each once under components/schemas and referred to from every use.
  const named: NamedSchemas = {};
  const errorSchema = errorJsonSchema(named);
  for (const e of ENDPOINTS) {
    e.forms.forEach((form, i) => {
      if (!atLeast(version, form.from)) return;
      const path = openApiPath(form.template, product);
      const item = (paths[path] ??= {});
      for (const method of e.methods) item[method.toLowerCase()] = operation(e, version, method, form.template, i, options.rateLimitHeaders ?? 'x', named);
    });
  }
  const headers: Json = { 'X-API-Version': { description: 'The API version that answered.', schema: { type: 'string', enum: [version] } } };
  for (const [name, description] of Object.entries(RATE_HEADERS)) headers[name] = { description, schema: { type: 'integer' } };
  for (const [name, description] of Object.entries(IETF_HEADERS)) headers[name] = { description, schema: { type: 'string' } };
  const responses: Json = {};
  for (const [code, description] of Object.entries(ERROR_TEXT)) {
    responses[`Error${code}`] = {
      description,
      headers: {
        'X-API-Version': { $ref: '#/components/headers/X-API-Version' },
        ...(code === '503' ? { 'Retry-After': { description: 'Seconds to wait before trying again.', schema: { type: 'integer' } } } : {}),
      },
      content: { 'application/json': { schema: errorSchema, example: { error: description } } },
    };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Social-data platform API',
      version,
      description:
        `Generated from the catalogue of the sdp engine. Released ${v.released}.` +
        (v.breakingChanges.length > 0 ? ` Breaking changes in ${version}: ${v.breakingChanges.join('; ')}.` : '') +
        (v.deprecation ? ` Deprecated since ${v.deprecation.announced}; sunset ${v.deprecation.sunset}.` : '') +
        ' Parameters may be sent in the query string, as a JSON object or as a urlencoded form; path parameters win. ' +
        'After any code above 200 a client should wait before trying again.',
    },
    servers: [{ url: `/v${version}` }],
    security: [{ authorization: [] }, { auth: [] }, { basic: [] }],
    tags: [...new Set(ENDPOINTS.map((e) => e.group))].map((name) => ({ name })),
    paths,
    components: {
      securitySchemes: {
        authorization: { type: 'apiKey', in: 'header', name: 'Authorization', description: '`username:api_key`, raw (not Basic).' },
        auth: { type: 'apiKey', in: 'header', name: 'Auth', description: '`username:api_key`.' },
        basic: { type: 'http', scheme: 'basic', description: 'username and API key as HTTP Basic.' },
      },
      schemas: Object.fromEntries(Object.entries(named).sort(([a], [b]) => a.localeCompare(b))),
      parameters: {
        IdempotencyKey: {
          name: 'Idempotency-Key',
          in: 'header',
          required: false,
          schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[^,]*$' },
          description: 'Executed and charged once per account and key for 24 hours; a repeat replays the answer with `Idempotent-Replayed: true`. One header, with no comma in the key (two headers arrive joined by one): 400 otherwise.',
        },
      },
      headers,
      responses,
    },
    'x-sdp-versions': VERSIONS.map((x) => x.id),
  };
}
