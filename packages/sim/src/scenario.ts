import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { DEFAULT_PACKAGE, endpointById, isEndpointId, readPackageFields, type AccountPackage, type EndpointId, type VersionId } from '@sdp/core';
import { STREAM_SUBSCRIBE_COST } from '@sdp/core/internal';
import { actorSchemas, scenarioFileSchema, STREAM_ACTOR_TRANSPORTS, type StreamActorTransport } from './scenario-schema.ts';
import { parseDuration } from './duration.ts';
import { isCurrency, readPrice, type Price } from './price.ts';

/** When calls come: offsets from the actor's start, in milliseconds. */
export type Schedule =
  | { type: 'steady'; interval: number }
  | { type: 'burst'; size: number; every: number; spacing: number }
  | { type: 'daily'; hourly: number[]; utcOffsetHours: number }
  | { type: 'once'; at: number[] };

/** How a client answers a refusal: wait and send the same call again, as real clients do. */
export interface RetryPolicy {
  on: number[];
  /** Attempts in all, the first included. */
  maxAttempts: number;
  /** `exponential`: base × factor^(n-1), capped; `reset`: wait for `X-RateLimit-Reset-Ttl` (plus `base`). */
  backoff: 'exponential' | 'reset';
  base: number;
  factor: number;
  maxDelay: number;
}

/** A call made once when the actor starts; its answer can be quoted in later params as `${as.body...}`. */
export interface SetupCall {
  as: string;
  endpoint: EndpointId;
  version: VersionId;
  params: Record<string, unknown>;
}

/** An ingestion body: `interactions` copies of `template` as newline-delimited JSON. */
export interface InteractionBody {
  interactions: number;
  template: Record<string, unknown>;
}

interface ActorBase {
  name: string;
  account: string;
  schedule: Schedule;
  /** Offsets from the scenario start. */
  start: number;
  stop: number;
}

export interface CallActor extends ActorBase {
  kind: 'calls';
  endpoint: EndpointId | '';
  version: VersionId;
  params: Record<string, unknown>;
  body?: InteractionBody;
  /** The request's media type (task creation wants `application/json`, the default). */
  mediaType: string;
  setup: SetupCall[];
  retry?: RetryPolicy;
}

/**
 * A stream consumer, through the core's `StreamGate` as the real stream: compiles `filters` at its start,
 * (re)connects at each scheduled instant and subscribes to every hash (5 credits each), closes at `stop`.
 */
export interface StreamActor extends ActorBase {
  kind: 'stream';
  /** The CSDL of each hash it streams (from `filters`, or generated for `hashes: N`). */
  filters: string[];
  /**
   * How it connects: one WebSocket for all its hashes (the default), one multi HTTP stream for all
   * (`http-multi`, `GET /multi?hashes=`), or an HTTP stream a hash (`http`, `GET /<hash>`), each a
   * connection of the package's `stream_connections`.
   */
  transport: StreamActorTransport;
}


/**
 * Interactions arriving for an account's running recordings: the core's seeded synthetic firehose,
 * switched on at `start`, fed as the clock moves (every `every`), switched off at `stop`.
 */
export interface FirehoseActor extends ActorBase {
  kind: 'firehose';
  service: string;
  perMinute: number;
  firehoseSeed: number;
  every: number;
}

export type Actor = CallActor | StreamActor | FirehoseActor;

export interface AccountSpec {
  username: string;
  apiKey: string;
  /** The package name it was given (`inline` for fields written in place). */
  packageName: string;
  package: Partial<AccountPackage>;
}

export interface Scenario {
  name: string;
  /** Unix ms of the first instant. */
  start: number;
  /** Milliseconds simulated. */
  duration: number;
  seed: number;
  version: VersionId;
  limitingDay: 'pst' | 'america-los-angeles';
  packages: Record<string, Partial<AccountPackage>>;
  /** What each named package costs (`price` in its fields), where the file says. */
  prices: Record<string, Price>;
  /** Refusals a package may leave and still serve (the answer's budget; 0 when the file sets none). */
  refusalBudget: number;
  /** Package names to run the scenario under, side by side. */
  compare: string[];
  accounts: AccountSpec[];
  actors: Actor[];
}

export interface ScenarioIssue {
  path: string;
  message: string;
}

/** A scenario file that cannot be run; every issue names the path of the field at fault. */
export class ScenarioError extends Error {
  readonly issues: ScenarioIssue[];
  constructor(issues: ScenarioIssue[], source?: string) {
    super(`${source ? `${source}: ` : ''}the scenario is not valid:\n${issues.map((i) => `  ${i.path}: ${i.message}`).join('\n')}`);
    this.name = 'ScenarioError';
    this.issues = issues;
  }
}

/** What the command line may change in a file before it is checked. */
export interface ScenarioOverrides {
  /** The run's length (`4w`, `28d`): a week's file run for a month, its actors' stops as they were written. */
  duration?: string;
}

/** Reads YAML (JSON is YAML too) and validates it. `source` names the file in error messages. */
export function parseScenario(text: string, source?: string, overrides: ScenarioOverrides = {}): Scenario {
  let raw: unknown;
  try {
    raw = parseYaml(text, { prettyErrors: true });
  } catch (error) {
    throw new ScenarioError([{ path: '(file)', message: `not valid YAML or JSON: ${(error as Error).message.split('\n')[0]}` }], source);
  }
  // Set before the checks, so that a bad span is reported as the file's would be and the actors' default
  // stop (the run's end) follows it.
  if (overrides.duration !== undefined && isObj(raw)) raw = { ...raw, duration: overrides.duration };
  return validateScenario(raw, source);
}

const PER: Record<string, number> = { second: 1000, minute: 60_000, hour: 3_600_000, day: 86_400_000 };
export const DEFAULT_START = Date.parse('2026-01-05T08:00:00Z');

type Raw = Record<string, unknown>;
const isObj = (v: unknown): v is Raw => typeof v === 'object' && v !== null && !Array.isArray(v);
const ms = (v: unknown): number => parseDuration(v)!;

/**
 * Checks a parsed scenario, collecting every issue (not only the first) with its path: first against
 * the format (`scenario-schema.ts`), then what refers to something else (packages, accounts, catalogue
 * ids) and package fields (the core's own reader). Issues come in the order of the file.
 */
export function validateScenario(raw: unknown, source?: string): Scenario {
  const issues: ScenarioIssue[] = [];
  const bad = (path: string, message: string): undefined => {
    issues.push({ path, message });
    return undefined;
  };
  checkFormat(raw, bad);
  if (!isObj(raw)) throw new ScenarioError(issues, source);
  const root = raw;
  const duration = parseDuration(root.duration) ?? 0;
  if (duration > 400 * 86_400_000) bad('duration', 'must be at most 400 days');
  if (root.duration !== undefined && parseDuration(root.duration) === 0) bad('duration', 'must be longer than 0');
  const seed = typeof root.seed === 'number' ? root.seed : 1;
  const version = (typeof root.version === 'string' ? root.version : '1.5') as VersionId;

  const packages: Record<string, Partial<AccountPackage>> = { default: {} };
  const prices: Record<string, Price> = {};
  for (const [k, v] of Object.entries(isObj(root.packages) ? root.packages : {})) {
    if (!isObj(v)) continue;
    // The price is the buyer's figure, not the platform's: taken out before the core reads the fields.
    const { price, ...platform } = v;
    if (typeof price === 'number' || isObj(price)) prices[k] = readPrice(price as Parameters<typeof readPrice>[0]);
    const fields = pkg(platform, `packages.${k}`, bad);
    if (fields) packages[k] = fields;
  }
  // Prices are compared with one another, so they must be in one currency (periods convert: a year is 12 months).
  const priced = Object.entries(prices).filter(([, p]) => isCurrency(p.currency));
  const currency = priced[0]?.[1].currency;
  for (const [k, p] of priced) {
    if (p.currency === currency) continue;
    const raw = (root.packages as Raw)[k] as Raw;
    bad(isObj(raw.price) && raw.price.currency !== undefined ? `packages.${k}.price.currency` : `packages.${k}.price`, `must be in ${currency}, the currency of the package ${priced[0]![0]}: prices in different currencies cannot be compared`);
  }
  const names = () => Object.keys(packages).join(', ');
  const compare: string[] = [];
  (Array.isArray(root.compare) ? root.compare : []).forEach((n, i) => {
    if (typeof n !== 'string') return;
    if (!(n in packages)) bad(`compare[${i}]`, `names no package; packages are ${names()}`);
    else compare.push(n);
  });

  const accounts: AccountSpec[] = [];
  (Array.isArray(root.accounts) ? root.accounts : []).forEach((a, i) => {
    const path = `accounts[${i}]`;
    if (!isObj(a) || typeof a.username !== 'string') return;
    const username = a.username;
    if (accounts.some((x) => x.username === username)) bad(`${path}.username`, `${username} appears twice`);
    let packageName = 'default';
    let fields: Partial<AccountPackage> = {};
    if (typeof a.package === 'string') {
      if (!(a.package in packages)) bad(`${path}.package`, `names no package; packages are ${names()}`);
      else {
        packageName = a.package;
        fields = packages[a.package]!;
      }
    } else if (isObj(a.package)) {
      packageName = 'inline';
      fields = pkg(a.package, `${path}.package`, bad) ?? {};
    }
    const apiKey = typeof a.api_key === 'string' ? a.api_key : `sim-key-${String(i).padStart(4, '0')}-${username}`.slice(0, 128);
    accounts.push({ username, apiKey, packageName, package: fields });
  });

  const actors: Actor[] = [];
  (Array.isArray(root.actors) ? root.actors : []).forEach((a, i) => {
    const path = `actors[${i}]`;
    if (!isObj(a)) return;
    const kind = a.kind ?? 'calls';
    const actorName = typeof a.name === 'string' ? a.name : `actor-${i}`;
    if (actors.some((x) => x.name === actorName)) bad(`${path}.name`, `${actorName} appears twice`);
    let account = accounts[0]?.username ?? '';
    if (typeof a.account === 'string') {
      if (!accounts.some((x) => x.username === a.account)) bad(`${path}.account`, `names no account; accounts are ${accounts.map((x) => x.username).join(', ')}`);
      else account = a.account;
    } else if (a.account === undefined && accounts.length > 1) bad(`${path}.account`, 'is required when the scenario has several accounts');
    // A calls actor with only setup calls (start a recording, say) needs no schedule and no endpoint.
    const setupOnly = kind === 'calls' && a.setup !== undefined && a.schedule === undefined && a.endpoint === undefined;
    if (kind === 'calls' && a.schedule === undefined && a.setup === undefined) bad(`${path}.schedule`, 'is required');
    if (kind === 'calls' && !setupOnly && a.endpoint === undefined) bad(`${path}.endpoint`, 'is required');
    if (kind === 'calls' && typeof a.endpoint === 'string' && !isRestEndpoint(a.endpoint)) bad(`${path}.endpoint`, unknownEndpoint(a.endpoint));
    if (Array.isArray(a.setup)) {
      a.setup.forEach((c, j) => {
        if (isObj(c) && typeof c.endpoint === 'string' && !isRestEndpoint(c.endpoint)) bad(`${path}.setup[${j}].endpoint`, unknownEndpoint(c.endpoint));
      });
    }
    const schedule = isObj(a.schedule) ? sched(withType(a.schedule), `${path}.schedule`, bad) : undefined;
    const from = a.start === undefined ? 0 : parseDuration(a.start) ?? 0;
    const to = a.stop === undefined ? duration : parseDuration(a.stop) ?? duration;
    if (a.stop !== undefined && to <= from) bad(`${path}.stop`, 'must be later than start');
    if (kind === 'stream') {
      const given = (['filters', 'hashes', 'cost'] as const).filter((f) => a[f] !== undefined);
      if (given.length === 0) bad(`${path}.hashes`, 'is required (or filters, a list of CSDL)');
      else if (given.length > 1) bad(`${path}.${given[1]}`, `cannot be given with ${given[0]}: a stream actor has hashes (a count) or filters (a list of CSDL)`);
      else if (given[0] === 'cost' && typeof a.cost === 'number' && a.cost % STREAM_SUBSCRIBE_COST !== 0) {
        bad(`${path}.cost`, `is deprecated and read as hashes: cost / ${STREAM_SUBSCRIBE_COST} (a subscription's credits), so it must be a multiple of ${STREAM_SUBSCRIBE_COST}; write hashes: N or filters: [CSDL, ...] instead`);
      }
    }
    if (kind === 'stream' && a.transport !== undefined && !STREAM_ACTOR_TRANSPORTS.includes(a.transport as StreamActorTransport)) bad(`${path}.transport`, `must be ${STREAM_ACTOR_TRANSPORTS.join(', ')}`);
    if (kind === 'firehose' && a.every !== undefined && parseDuration(a.every) === 0) bad(`${path}.every`, 'must be longer than 0');
    if (issues.length > 0) return;
    const base = { name: actorName, account, schedule: schedule ?? { type: 'once' as const, at: [] }, start: from, stop: Math.min(to, duration) };
    if (kind === 'firehose') {
      actors.push({ ...base, kind: 'firehose', service: (a.service as string | undefined) ?? 'facebook', perMinute: a.per_minute as number, firehoseSeed: (a.seed as number | undefined) ?? seed, every: a.every === undefined ? 10 * 60_000 : ms(a.every) });
    } else if (kind === 'stream') {
      actors.push({ ...base, kind: 'stream', filters: streamFilters(a, actorName), transport: (a.transport as StreamActorTransport | undefined) ?? 'websocket' });
    } else {
      const actorVersion = (a.version as VersionId | undefined) ?? version;
      const body = isObj(a.body) ? { interactions: a.body.interactions as number, template: (a.body.template as Raw | undefined) ?? {} } : undefined;
      const setup: SetupCall[] = ((a.setup as Raw[] | undefined) ?? []).map((c, j) => ({
        as: (c.as as string | undefined) ?? `setup${j}`,
        endpoint: c.endpoint as EndpointId,
        version: (c.version as VersionId | undefined) ?? actorVersion,
        params: (c.params as Raw | undefined) ?? {},
      }));
      const retry = isObj(a.retry) ? retryPolicy(a.retry) : undefined;
      actors.push({
        ...base,
        kind: 'calls',
        endpoint: setupOnly ? '' : (a.endpoint as EndpointId),
        version: actorVersion,
        params: (a.params as Raw | undefined) ?? {},
        ...(body ? { body } : {}),
        mediaType: (a.media_type as string | undefined) ?? 'application/json',
        setup,
        ...(retry ? { retry } : {}),
      });
    }
  });

  if (issues.length > 0) throw new ScenarioError(sortByFile(issues, raw), source);
  const start = root.start === undefined ? DEFAULT_START : Date.parse(root.start instanceof Date ? root.start.toISOString() : String(root.start));
  const limitingDay = (root.limiting_day as Scenario['limitingDay'] | undefined) ?? 'pst';
  const refusalBudget = (root.refusal_budget as number | undefined) ?? 0;
  return { name: (root.name as string | undefined) ?? 'scenario', start, duration, seed, version, limitingDay, packages, prices, refusalBudget, compare, accounts, actors };
}

/**
 * A stream actor's filters: its `filters`, or for `hashes: N` (and the deprecated `cost: 5N`) N filters of
 * its own that the synthetic firehose never matches, so only the subscriptions' charges count.
 */
function streamFilters(a: Raw, actorName: string): string[] {
  if (Array.isArray(a.filters)) return a.filters as string[];
  const n = a.hashes !== undefined ? (a.hashes as number) : (a.cost as number) / STREAM_SUBSCRIBE_COST;
  return Array.from({ length: n }, (_, i) => `fb.content contains "sim stream ${actorName} ${i + 1}"`);
}

/** `{rate: 2, per: hour}` is a steady schedule: the type may be left out there. */
function withType(s: Raw): Raw {
  return s.type === undefined && s.rate !== undefined ? { type: 'steady', ...s } : s;
}

const isPackagePath = (path: (string | number | symbol)[]) => (path[0] === 'packages' && path.length > 2 && path[2] !== 'price') || (path[0] === 'accounts' && path[2] === 'package' && path.length > 3);

/** The schema's verdict, as issues with this file's paths and words. Package fields are left to the core's reader. */
function checkFormat(raw: unknown, bad: Bad): void {
  const root = scenarioFileSchema.extend({ actors: z.array(z.unknown()).min(1) });
  const report = (error: z.ZodError | undefined, prefix: (string | number)[]) => {
    const one = (issue: z.core.$ZodIssue, at: PropertyKey[]) => {
      if (issue.code === 'unrecognized_keys') {
        for (const key of issue.keys) if (!isPackagePath([...at, key])) bad(pathText([...at, key]), issue.message);
        return;
      }
      if (isPackagePath(at)) return;
      // A price written as an object: what is wrong inside it, not that it is neither a number nor an object.
      if (issue.code === 'invalid_union' && at[at.length - 1] === 'price' && isObj(valueAt(raw, at)) && issue.errors[1]) {
        for (const inner of issue.errors[1]) one(inner, [...at, ...inner.path]);
        return;
      }
      if (issue.code === 'invalid_union' && at[at.length - 1] === 'schedule') bad(pathText([...at, 'type']), 'must be steady, burst, daily or once');
      else bad(pathText(at), issue.message);
    };
    for (const issue of error?.issues ?? []) one(issue, [...prefix, ...issue.path]);
  };
  report(root.safeParse(raw, { error: wording }).error, []);
  if (!isObj(raw) || !Array.isArray(raw.actors)) return;
  raw.actors.forEach((a, i) => {
    if (!isObj(a)) return;
    const kind = a.kind ?? 'calls';
    if (kind !== 'calls' && kind !== 'stream' && kind !== 'firehose') return void bad(`actors[${i}].kind`, 'must be calls, stream or firehose');
    const actor = isObj(a.schedule) ? { ...a, schedule: withType(a.schedule) } : a;
    report(actorSchemas[kind].safeParse(actor, { error: wording }).error, ['actors', i]);
  });
}

/** What the file holds at a path (undefined where the path leads nowhere). */
function valueAt(raw: unknown, path: PropertyKey[]): unknown {
  let v = raw;
  for (const key of path) v = isObj(v) || Array.isArray(v) ? (v as Record<PropertyKey, unknown>)[key] : undefined;
  return v;
}

/** The schema's issues in this file's words (a field's own wording, set in the schema, comes first). */
function wording(issue: z.core.$ZodRawIssue): string | undefined {
  switch (issue.code) {
    case 'invalid_type':
      if (issue.input === undefined) return 'is required';
      return { string: 'must be a non-empty string', number: 'must be a number', int: 'must be a whole number', object: 'must be an object', record: 'must be an object', array: 'must be a list' }[issue.expected as string] ?? `must be ${issue.expected}`;
    case 'too_small':
      if (issue.origin === 'array' && Number(issue.minimum) === 1) return 'must not be empty';
      if (issue.origin === 'string') return 'must be a non-empty string';
      if (issue.origin === 'number' && Number(issue.minimum) === 0 && !issue.inclusive) return 'must be a positive number';
      return `must be at least ${issue.minimum}`;
    case 'too_big':
      return `must be at most ${issue.maximum}`;
    case 'invalid_value':
      return `must be ${orList(issue.values.map(String))}`;
    default:
      return undefined;
  }
}

const orList = (xs: string[]) => (xs.length > 4 ? `one of ${xs.join(', ')}` : xs.length > 1 ? `${xs.slice(0, -1).join(', ')} or ${xs[xs.length - 1]}` : (xs[0] ?? ''));

function pathText(path: (string | number | symbol)[]): string {
  return path.reduce<string>((s, p) => (typeof p === 'number' ? `${s}[${p}]` : s ? `${s}.${String(p)}` : String(p)), '') || '(root)';
}

/** Issues in the order their fields appear in the file (fields it lacks after those it has, in the schema's order). */
function sortByFile(issues: ScenarioIssue[], raw: unknown): ScenarioIssue[] {
  const rank = (path: string): number[] => {
    const out: number[] = [];
    let node: unknown = raw;
    for (const m of path.matchAll(/([^.[\]]+)|\[(\d+)\]/g)) {
      const key = m[2] !== undefined ? Number(m[2]) : m[1]!;
      if (typeof key === 'number') out.push(key);
      else {
        const keys = isObj(node) ? Object.keys(node) : [];
        out.push(keys.includes(key) ? keys.indexOf(key) : 1e9);
      }
      node = isObj(node) || Array.isArray(node) ? (node as Raw)[key as string] : undefined;
    }
    return out;
  };
  const ranks = new Map(issues.map((i) => [i, rank(i.path)]));
  return [...issues].sort((a, b) => {
    const ra = ranks.get(a)!;
    const rb = ranks.get(b)!;
    for (let k = 0; k < Math.min(ra.length, rb.length); k++) if (ra[k] !== rb[k]) return ra[k]! - rb[k]!;
    return 0;
  });
}

type Bad = (path: string, message: string) => undefined;

function pkg(v: unknown, path: string, bad: Bad): Partial<AccountPackage> | undefined {
  try {
    return readPackageFields(v);
  } catch (error) {
    const message = (error as Error).message.replace(/^package\.?/, '');
    const m = /^(\w+) (.*)$/.exec(message);
    if (m && m[1]! in DEFAULT_PACKAGE) return bad(`${path}.${m[1]}`, m[2]!);
    return bad(path, message.replace(/^ /, ''));
  }
}

/** A schedule the format has passed, in milliseconds; what the format cannot say is checked here. */
function sched(o: Raw, path: string, bad: Bad): Schedule | undefined {
  switch (o.type) {
    case 'steady': {
      if (typeof o.rate !== 'number') return undefined;
      const interval = PER[(o.per as string | undefined) ?? 'second']! / o.rate;
      if (interval < 1) return bad(`${path}.rate`, 'must leave at least a millisecond between calls');
      return { type: 'steady', interval };
    }
    case 'burst': {
      const size = o.size as number;
      const every = parseDuration(o.every);
      const spacing = o.spacing === undefined ? 0 : parseDuration(o.spacing);
      if (typeof size !== 'number' || every === undefined || spacing === undefined) return undefined;
      if (every <= 0) return bad(`${path}.every`, 'must be longer than 0');
      if (size * spacing > every) return bad(`${path}.spacing`, 'a burst must fit in its period (size × spacing ≤ every)');
      return { type: 'burst', size, every, spacing };
    }
    case 'daily':
      return { type: 'daily', hourly: o.hourly as number[], utcOffsetHours: (o.utc_offset_hours as number | undefined) ?? 0 };
    case 'once':
      return { type: 'once', at: ((o.at as unknown[] | undefined) ?? []).map((t) => parseDuration(t) ?? 0).sort((x, y) => x - y) };
    default:
      return undefined;
  }
}

/** A retry policy the format has passed, with its defaults. */
function retryPolicy(o: Raw): RetryPolicy {
  return {
    on: (o.on as number[] | undefined) ?? [403, 429],
    maxAttempts: (o.max_attempts as number | undefined) ?? 5,
    backoff: o.backoff === 'reset' ? 'reset' : 'exponential',
    base: o.base === undefined ? 1000 : ms(o.base),
    factor: (o.factor as number | undefined) ?? 2,
    maxDelay: o.max_delay === undefined ? 3_600_000 : ms(o.max_delay),
  };
}

/** A REST endpoint of the catalogue: the stream's internal actions are a stream actor's, not a call's. */
const isRestEndpoint = (id: string): boolean => isEndpointId(id) && !endpointById(id).internal;

const unknownEndpoint = (id: string): string => {
  if (!isEndpointId(id)) return `no endpoint ${id} in the catalogue (ids look like core.validate, tasks.create, ingest)`;
  // The operator's charge has no caller in a scenario: a stream actor's subscriptions are what is charged.
  if (endpointById(id).caller === 'operator') return `${id} is the operator's, not a client's: a stream actor (kind: stream) is charged for its subscriptions`;
  return `${id} is one of the stream's actions: use a stream actor (kind: stream)`;
};
