import { parse as parseYaml } from 'yaml';
import { DEFAULT_PACKAGE, ENDPOINTS, VERSIONS, readPackageFields, type AccountPackage, type VersionId } from '@sdp/core';
import { parseDuration } from './duration.ts';

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
  endpoint: string;
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
  endpoint: string;
  version: VersionId;
  params: Record<string, unknown>;
  body?: InteractionBody;
  /** The request's media type (task creation wants `application/json`, the default). */
  mediaType: string;
  setup: SetupCall[];
  retry?: RetryPolicy;
}

/** Stream-product usage: charges the account's general allowance through `engine.chargeStream`. */
export interface StreamActor extends ActorBase {
  kind: 'stream';
  cost: number;
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
  prices: Record<string, number>;
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

/** Reads YAML (JSON is YAML too) and validates it. `source` names the file in error messages. */
export function parseScenario(text: string, source?: string): Scenario {
  let raw: unknown;
  try {
    raw = parseYaml(text, { prettyErrors: true });
  } catch (error) {
    throw new ScenarioError([{ path: '(file)', message: `not valid YAML or JSON: ${(error as Error).message.split('\n')[0]}` }], source);
  }
  return validateScenario(raw, source);
}

const VERSION_IDS = VERSIONS.map((v) => v.id) as string[];
const ENDPOINT_IDS = new Set(ENDPOINTS.map((e) => e.id));
const PER: Record<string, number> = { second: 1000, minute: 60_000, hour: 3_600_000, day: 86_400_000 };
export const DEFAULT_START = Date.parse('2026-01-05T08:00:00Z');

/** Checks a parsed scenario, collecting every issue (not only the first) with its path. */
export function validateScenario(raw: unknown, source?: string): Scenario {
  const issues: ScenarioIssue[] = [];
  const bad = (path: string, message: string): undefined => {
    issues.push({ path, message });
    return undefined;
  };
  const root = obj(raw, '(root)', bad) ?? {};
  known(root, '', ['name', 'start', 'duration', 'seed', 'version', 'limiting_day', 'packages', 'compare', 'refusal_budget', 'accounts', 'actors'], bad);

  const name = root.name === undefined ? 'scenario' : str(root.name, 'name', bad) ?? 'scenario';
  let start = DEFAULT_START;
  if (root.start !== undefined) {
    const t = typeof root.start === 'string' || root.start instanceof Date ? Date.parse(String(root.start instanceof Date ? root.start.toISOString() : root.start)) : NaN;
    if (Number.isNaN(t)) bad('start', 'must be an ISO date-time such as 2026-01-05T08:00:00Z');
    else start = t;
  }
  const duration = dur(root.duration, 'duration', bad, { required: true, positive: true }) ?? 0;
  if (duration > 400 * 86_400_000) bad('duration', 'must be at most 400 days');
  const seed = root.seed === undefined ? 1 : int(root.seed, 'seed', bad) ?? 1;
  const version = root.version === undefined ? '1.5' : ver(root.version, 'version', bad) ?? '1.5';
  let limitingDay: Scenario['limitingDay'] = 'pst';
  if (root.limiting_day !== undefined) {
    if (root.limiting_day === 'pst' || root.limiting_day === 'america-los-angeles') limitingDay = root.limiting_day;
    else bad('limiting_day', 'must be pst or america-los-angeles');
  }

  const packages: Record<string, Partial<AccountPackage>> = { default: {} };
  const prices: Record<string, number> = {};
  if (root.packages !== undefined) {
    const p = obj(root.packages, 'packages', bad) ?? {};
    for (const [k, v] of Object.entries(p)) {
      // The price is the buyer's figure, not the platform's: taken out before the core reads the fields.
      let fieldsIn = v;
      if (typeof v === 'object' && v !== null && !Array.isArray(v) && 'price' in v) {
        const { price, ...rest } = v as Record<string, unknown>;
        fieldsIn = rest;
        if (typeof price !== 'number' || !Number.isFinite(price) || price < 0) bad(`packages.${k}.price`, 'must be a number from 0 up');
        else prices[k] = price;
      }
      const fields = pkg(fieldsIn, `packages.${k}`, bad);
      if (fields) packages[k] = fields;
    }
  }
  const refusalBudget = root.refusal_budget === undefined ? 0 : int(root.refusal_budget, 'refusal_budget', bad, { min: 0 }) ?? 0;

  const compare: string[] = [];
  if (root.compare !== undefined) {
    const list = arr(root.compare, 'compare', bad) ?? [];
    list.forEach((n, i) => {
      const s = str(n, `compare[${i}]`, bad);
      if (s === undefined) return;
      if (!(s in packages)) bad(`compare[${i}]`, `names no package; packages are ${Object.keys(packages).join(', ')}`);
      else compare.push(s);
    });
  }

  const accounts: AccountSpec[] = [];
  const accountList = arr(root.accounts, 'accounts', bad, { required: true, nonEmpty: true }) ?? [];
  accountList.forEach((a, i) => {
    const path = `accounts[${i}]`;
    const o = obj(a, path, bad);
    if (!o) return;
    known(o, path, ['username', 'api_key', 'package'], bad);
    const username = str(o.username, `${path}.username`, bad, { required: true });
    if (username !== undefined && !/^[A-Za-z0-9_.@-]{1,64}$/.test(username)) bad(`${path}.username`, 'must be 1 to 64 letters, digits or _ . @ -');
    if (username !== undefined && accounts.some((x) => x.username === username)) bad(`${path}.username`, `${username} appears twice`);
    const apiKey = o.api_key === undefined ? undefined : str(o.api_key, `${path}.api_key`, bad);
    let packageName = 'default';
    let fields: Partial<AccountPackage> = {};
    if (typeof o.package === 'string') {
      if (!(o.package in packages)) bad(`${path}.package`, `names no package; packages are ${Object.keys(packages).join(', ')}`);
      else {
        packageName = o.package;
        fields = packages[o.package]!;
      }
    } else if (o.package !== undefined) {
      packageName = 'inline';
      fields = pkg(o.package, `${path}.package`, bad) ?? {};
    }
    if (username !== undefined) accounts.push({ username, apiKey: apiKey ?? `sim-key-${String(i).padStart(4, '0')}-${username}`.slice(0, 128), packageName, package: fields });
  });

  const actors: Actor[] = [];
  const actorList = arr(root.actors, 'actors', bad, { required: true, nonEmpty: true }) ?? [];
  actorList.forEach((a, i) => {
    const path = `actors[${i}]`;
    const o = obj(a, path, bad);
    if (!o) return;
    const kind = o.kind === undefined ? 'calls' : o.kind;
    if (kind !== 'calls' && kind !== 'stream' && kind !== 'firehose') {
      bad(`${path}.kind`, 'must be calls, stream or firehose');
      return;
    }
    const common = ['name', 'kind', 'account', 'schedule', 'start', 'stop'];
    const fields =
      kind === 'stream' ? [...common, 'cost'] : kind === 'firehose' ? ['name', 'kind', 'account', 'start', 'stop', 'service', 'per_minute', 'seed', 'every'] : [...common, 'endpoint', 'version', 'params', 'body', 'media_type', 'setup', 'retry'];
    known(o, path, fields, bad);
    const actorName = o.name === undefined ? `actor-${i}` : str(o.name, `${path}.name`, bad) ?? `actor-${i}`;
    if (actors.some((x) => x.name === actorName)) bad(`${path}.name`, `${actorName} appears twice`);
    let account = accounts[0]?.username ?? '';
    if (o.account !== undefined) {
      const s = str(o.account, `${path}.account`, bad);
      if (s !== undefined && !accounts.some((x) => x.username === s)) bad(`${path}.account`, `names no account; accounts are ${accounts.map((x) => x.username).join(', ')}`);
      else if (s !== undefined) account = s;
    } else if (accounts.length > 1) bad(`${path}.account`, 'is required when the scenario has several accounts');
    // A calls actor with only setup calls (start a recording, say) needs no schedule.
    const schedule = kind === 'firehose' || (o.schedule === undefined && kind === 'calls' && o.setup !== undefined) ? { type: 'once' as const, at: [] } : sched(o.schedule, `${path}.schedule`, bad);
    const from = o.start === undefined ? 0 : dur(o.start, `${path}.start`, bad) ?? 0;
    const to = o.stop === undefined ? duration : dur(o.stop, `${path}.stop`, bad) ?? duration;
    if (to <= from && o.stop !== undefined) bad(`${path}.stop`, 'must be later than start');
    const base = { name: actorName, account, schedule: schedule ?? { type: 'once' as const, at: [] }, start: from, stop: Math.min(to, duration) };
    if (kind === 'firehose') {
      const service = o.service === undefined ? 'facebook' : str(o.service, `${path}.service`, bad) ?? 'facebook';
      const perMinute = int(o.per_minute, `${path}.per_minute`, bad, { required: true, min: 1 });
      const firehoseSeed = o.seed === undefined ? seed : int(o.seed, `${path}.seed`, bad) ?? seed;
      const every = o.every === undefined ? 10 * 60_000 : dur(o.every, `${path}.every`, bad, { positive: true }) ?? 10 * 60_000;
      actors.push({ ...base, kind: 'firehose', service, perMinute: perMinute ?? 1, firehoseSeed, every });
      return;
    }
    if (kind === 'stream') {
      const cost = int(o.cost, `${path}.cost`, bad, { required: true, min: 1 });
      actors.push({ ...base, kind: 'stream', cost: cost ?? 1 });
      return;
    }
    const setupOnly = o.setup !== undefined && o.schedule === undefined && o.endpoint === undefined;
    const endpoint = setupOnly ? undefined : str(o.endpoint, `${path}.endpoint`, bad, { required: true });
    if (endpoint !== undefined && !ENDPOINT_IDS.has(endpoint)) bad(`${path}.endpoint`, `no endpoint ${endpoint} in the catalogue (ids look like core.validate, tasks.create, ingest)`);
    const actorVersion = o.version === undefined ? version : ver(o.version, `${path}.version`, bad) ?? version;
    const params = o.params === undefined ? {} : obj(o.params, `${path}.params`, bad) ?? {};
    let body: InteractionBody | undefined;
    if (o.body !== undefined) {
      const b = obj(o.body, `${path}.body`, bad);
      if (b) {
        known(b, `${path}.body`, ['interactions', 'template'], bad);
        const n = int(b.interactions, `${path}.body.interactions`, bad, { required: true, min: 1 });
        const template = b.template === undefined ? {} : obj(b.template, `${path}.body.template`, bad);
        if (n !== undefined && template) body = { interactions: n, template };
      }
    }
    const setup: SetupCall[] = [];
    if (o.setup !== undefined) {
      (arr(o.setup, `${path}.setup`, bad) ?? []).forEach((s, j) => {
        const sp = `${path}.setup[${j}]`;
        const so = obj(s, sp, bad);
        if (!so) return;
        known(so, sp, ['as', 'endpoint', 'version', 'params'], bad);
        const as = so.as === undefined ? `setup${j}` : str(so.as, `${sp}.as`, bad) ?? `setup${j}`;
        const ep = str(so.endpoint, `${sp}.endpoint`, bad, { required: true });
        if (ep !== undefined && !ENDPOINT_IDS.has(ep)) bad(`${sp}.endpoint`, `no endpoint ${ep} in the catalogue`);
        const v = so.version === undefined ? actorVersion : ver(so.version, `${sp}.version`, bad) ?? actorVersion;
        const p = so.params === undefined ? {} : obj(so.params, `${sp}.params`, bad) ?? {};
        if (ep !== undefined) setup.push({ as, endpoint: ep, version: v, params: p });
      });
    }
    const mediaType = o.media_type === undefined ? 'application/json' : str(o.media_type, `${path}.media_type`, bad) ?? 'application/json';
    const retry = o.retry === undefined ? undefined : retryPolicy(o.retry, `${path}.retry`, bad);
    actors.push({ ...base, kind: 'calls', endpoint: endpoint ?? '', version: actorVersion, params, ...(body ? { body } : {}), mediaType, setup, ...(retry ? { retry } : {}) });
  });

  if (issues.length > 0) throw new ScenarioError(issues, source);
  return { name, start, duration, seed, version, limitingDay, packages, prices, refusalBudget, compare, accounts, actors };
}

type Bad = (path: string, message: string) => undefined;

function known(o: Record<string, unknown>, path: string, fields: string[], bad: Bad): void {
  for (const k of Object.keys(o)) if (!fields.includes(k)) bad(path ? `${path}.${k}` : k, `is not a field here; fields are ${fields.join(', ')}`);
}

function obj(v: unknown, path: string, bad: Bad): Record<string, unknown> | undefined {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return bad(path, v === undefined ? 'is required' : 'must be an object');
  return v as Record<string, unknown>;
}

function arr(v: unknown, path: string, bad: Bad, o: { required?: boolean; nonEmpty?: boolean } = {}): unknown[] | undefined {
  if (v === undefined) return o.required ? bad(path, 'is required') : undefined;
  if (!Array.isArray(v)) return bad(path, 'must be a list');
  if (o.nonEmpty && v.length === 0) return bad(path, 'must not be empty');
  return v;
}

function str(v: unknown, path: string, bad: Bad, o: { required?: boolean } = {}): string | undefined {
  if (v === undefined) return o.required ? bad(path, 'is required') : undefined;
  if (typeof v !== 'string' || v.length === 0) return bad(path, 'must be a non-empty string');
  return v;
}

function int(v: unknown, path: string, bad: Bad, o: { required?: boolean; min?: number } = {}): number | undefined {
  if (v === undefined) return o.required ? bad(path, 'is required') : undefined;
  if (typeof v !== 'number' || !Number.isSafeInteger(v)) return bad(path, 'must be a whole number');
  if (o.min !== undefined && v < o.min) return bad(path, `must be at least ${o.min}`);
  return v;
}

function positive(v: unknown, path: string, bad: Bad): number | undefined {
  if (v === undefined) return bad(path, 'is required');
  if (typeof v !== 'number' || !Number.isFinite(v) || v <= 0) return bad(path, 'must be a positive number');
  return v;
}

function dur(v: unknown, path: string, bad: Bad, o: { required?: boolean; positive?: boolean } = {}): number | undefined {
  if (v === undefined) return o.required ? bad(path, 'is required') : undefined;
  const ms = parseDuration(v);
  if (ms === undefined) return bad(path, 'must be a duration such as 500ms, 30s, 15m, 3h, 7d, 2w or 1mo');
  if (o.positive && ms <= 0) return bad(path, 'must be longer than zero');
  return ms;
}

function ver(v: unknown, path: string, bad: Bad): VersionId | undefined {
  const s = typeof v === 'number' ? v.toFixed(1) : v;
  if (typeof s !== 'string' || !VERSION_IDS.includes(s)) return bad(path, `must be one of ${VERSION_IDS.join(', ')}`);
  return s as VersionId;
}

/** Package fields are read by the core's own reader, so the sim accepts exactly what an operator may set. */
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

function sched(v: unknown, path: string, bad: Bad): Schedule | undefined {
  const o = obj(v, path, bad);
  if (!o) return undefined;
  const type = o.type ?? (o.rate !== undefined ? 'steady' : undefined);
  switch (type) {
    case 'steady': {
      known(o, path, ['type', 'rate', 'per'], bad);
      const rate = positive(o.rate, `${path}.rate`, bad);
      const per = o.per === undefined ? 'second' : o.per;
      if (typeof per !== 'string' || !(per in PER)) return bad(`${path}.per`, 'must be second, minute, hour or day');
      if (rate === undefined) return undefined;
      const interval = PER[per]! / rate;
      if (interval < 1) return bad(`${path}.rate`, 'must leave at least a millisecond between calls');
      return { type: 'steady', interval };
    }
    case 'burst': {
      known(o, path, ['type', 'size', 'every', 'spacing'], bad);
      const size = int(o.size, `${path}.size`, bad, { required: true, min: 1 });
      const every = dur(o.every, `${path}.every`, bad, { required: true, positive: true });
      const spacing = o.spacing === undefined ? 0 : dur(o.spacing, `${path}.spacing`, bad);
      if (size === undefined || every === undefined || spacing === undefined) return undefined;
      if (size * spacing > every) return bad(`${path}.spacing`, 'a burst must fit in its period (size × spacing ≤ every)');
      return { type: 'burst', size, every, spacing };
    }
    case 'daily': {
      known(o, path, ['type', 'hourly', 'utc_offset_hours'], bad);
      const hourly = arr(o.hourly, `${path}.hourly`, bad, { required: true });
      if (!hourly) return undefined;
      if (hourly.length !== 24) return bad(`${path}.hourly`, 'must list 24 figures, the calls in each hour of the day');
      let ok = true;
      hourly.forEach((h, i) => {
        if (typeof h !== 'number' || !Number.isFinite(h) || h < 0) ok = bad(`${path}.hourly[${i}]`, 'must be a number of calls, 0 or more') ?? false;
      });
      const offset = o.utc_offset_hours === undefined ? 0 : o.utc_offset_hours;
      if (typeof offset !== 'number' || !Number.isInteger(offset) || offset < -12 || offset > 14) return bad(`${path}.utc_offset_hours`, 'must be a whole number from -12 to 14');
      return ok ? { type: 'daily', hourly: hourly as number[], utcOffsetHours: offset } : undefined;
    }
    case 'once': {
      known(o, path, ['type', 'at'], bad);
      const at = arr(o.at, `${path}.at`, bad, { required: true }) ?? [];
      const out: number[] = [];
      at.forEach((t, i) => {
        const ms = dur(t, `${path}.at[${i}]`, bad);
        if (ms !== undefined) out.push(ms);
      });
      return { type: 'once', at: out.sort((a, b) => a - b) };
    }
    default:
      return bad(`${path}.type`, 'must be steady, burst, daily or once');
  }
}

function retryPolicy(v: unknown, path: string, bad: Bad): RetryPolicy | undefined {
  const o = obj(v, path, bad);
  if (!o) return undefined;
  known(o, path, ['on', 'max_attempts', 'backoff', 'base', 'factor', 'max_delay'], bad);
  let on = [403, 429];
  if (o.on !== undefined) {
    const l = arr(o.on, `${path}.on`, bad) ?? [];
    on = [];
    l.forEach((s, i) => {
      if (typeof s !== 'number' || !Number.isInteger(s) || s < 400 || s > 599) bad(`${path}.on[${i}]`, 'must be an HTTP status from 400 to 599');
      else on.push(s);
    });
  }
  const maxAttempts = o.max_attempts === undefined ? 5 : int(o.max_attempts, `${path}.max_attempts`, bad, { min: 1 }) ?? 5;
  const backoff = o.backoff === undefined ? 'exponential' : o.backoff;
  if (backoff !== 'exponential' && backoff !== 'reset') bad(`${path}.backoff`, 'must be exponential or reset');
  const base = o.base === undefined ? 1000 : dur(o.base, `${path}.base`, bad) ?? 1000;
  const factor = o.factor === undefined ? 2 : positive(o.factor, `${path}.factor`, bad) ?? 2;
  const maxDelay = o.max_delay === undefined ? 3_600_000 : dur(o.max_delay, `${path}.max_delay`, bad, { positive: true }) ?? 3_600_000;
  return { on, maxAttempts, backoff: backoff === 'reset' ? 'reset' : 'exponential', base, factor, maxDelay };
}
