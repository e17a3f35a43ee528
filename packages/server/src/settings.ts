import { parseArgs } from 'node:util';
import { LOOPBACK_HOSTS, type LimitingDayMode } from '@sdp/core';
import { DEFAULT_MAX_PER_ADDRESS, type RateLimitHeaders } from '@sdp/http';

/** Every setting of `sdp serve` (docs/contract.md#settings): each a flag, each also readable from an environment variable. */
export interface ServerSettings {
  port: number;
  host: string;
  /** `memory:`, `sqlite:PATH` or `postgres://...` */
  store: string;
  clock: 'system' | 'manual';
  /** Where a manual clock starts, in Unix milliseconds. */
  clockStartMs: number | undefined;
  adminToken: string | undefined;
  product: string;
  accountsFile: string | undefined;
  limitingDay: LimitingDayMode;
  /** Request bodies over this many bytes answer 413 (docs/contract.md#bodies-and-parameters). */
  bodyLimit: number;
  /** `stdout`, `off`, or a file the access log is appended to. */
  accessLog: string;
  /** Server processes sharing the port (node:cluster); above 1 needs a store several processes can share. */
  workers: number;
  /** Hosts push subscriptions may deliver to (docs/push.md); loopback only by default. */
  pushAllowedHosts: string[];
  /** `x` (the five X-RateLimit-* fields), `ietf` (RateLimit-Policy and RateLimit), or `both`. */
  rateLimitHeaders?: RateLimitHeaders;
  /**
   * `account`: a load balancer in front sends each account's calls to one server (docs/scaling.md), so
   * this process trusts its cached states as a sole writer does. `any` (default): any server may be
   * sent any call, so every load reads the streams' tails. `--workers` routes by account by itself.
   */
  routing: 'any' | 'account';
  /** A second port serving the stream alone (docs/contract.md#fixed-names-of-the-server "Stream"); absent: the API's port only. */
  streamPort?: number;
  /** Connections this process holds at once (each port's and handed ones together); absent: its descriptor limit less a margin. */
  maxConnections?: number;
  /** Connections one client address may hold at once; absent: `DEFAULT_MAX_PER_ADDRESS`. */
  maxConnectionsPerAddress?: number;
}

export class SettingsError extends Error {}

/**
 * One flag of a command: its variable, what it means, the form of its value, and how it is read. Help
 * texts are printed from these, so a setting added here is documented by `--help` at once.
 */
export interface Setting<T> {
  flag: string;
  /** The environment variable read when the flag is absent; none for flags that only make sense on a command line. */
  env?: string;
  /** The value's form, as help shows it: `PORT`, `URL`, `system|manual`. */
  format: string;
  summary: string;
  /** The default as help shows it (read from the defaults object). */
  shown(defaults: T): string;
  read(value: string, into: T): void;
}

const wholeNumber = (name: string, value: string, min: number, max: number): number => {
  if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max) throw new SettingsError(`${name} must be a whole number from ${min} to ${max}, not "${value}"`);
  return Number(value);
};

const orNone = (v: string | undefined): string => v ?? 'none';

/** The settings of `sdp serve` (docs/contract.md#settings). Add a setting here, in `ServerSettings` and in `defaultSettings`. */
export const SERVE_SETTINGS: Setting<ServerSettings>[] = [
  { flag: 'port', env: 'SDP_PORT', format: 'PORT', summary: 'TCP port to listen on (0: any free port)', shown: (d) => String(d.port), read: (v, s) => void (s.port = wholeNumber('--port', v, 0, 65535)) },
  {
    flag: 'stream-port',
    env: 'SDP_STREAM_PORT',
    format: 'PORT',
    summary: 'also serve the stream alone on this port (0: any free port); the API port serves it too',
    shown: (d) => (d.streamPort === undefined ? 'none' : String(d.streamPort)),
    read: (v, s) => void (s.streamPort = wholeNumber('--stream-port', v, 0, 65535)),
  },
  { flag: 'host', env: 'SDP_HOST', format: 'HOST', summary: 'address to listen on (0.0.0.0 for every interface)', shown: (d) => d.host, read: (v, s) => void (s.host = v) },
  {
    flag: 'store',
    env: 'SDP_STORE',
    format: 'memory:|sqlite:PATH|postgres://URL',
    summary: 'where events are kept (docs/stores.md)',
    shown: (d) => d.store,
    read: (v, s) => {
      if (!/^(memory:|sqlite:.+|postgres(ql)?:\/\/.+)$/.test(v)) throw new SettingsError(`--store must be memory:, sqlite:PATH or postgres://..., not "${v}"`);
      s.store = v;
    },
  },
  {
    flag: 'clock',
    env: 'SDP_CLOCK',
    format: 'system|manual',
    summary: 'manual: time moves only through the operator API',
    shown: (d) => d.clock,
    read: (v, s) => {
      if (v !== 'system' && v !== 'manual') throw new SettingsError(`--clock must be system or manual, not "${v}"`);
      s.clock = v;
    },
  },
  {
    flag: 'clock-start',
    env: 'SDP_CLOCK_START',
    format: 'UNIX_SECONDS',
    summary: 'where a manual clock starts',
    shown: () => 'now',
    read: (v, s) => {
      if (!/^\d+(\.\d+)?$/.test(v)) throw new SettingsError(`--clock-start must be a Unix time in seconds, not "${v}"`);
      s.clockStartMs = Math.round(Number(v) * 1000);
    },
  },
  {
    flag: 'admin-token',
    env: 'SDP_ADMIN_TOKEN',
    format: 'TOKEN',
    summary: 'turns the operator API on at /_admin (Authorization: Bearer TOKEN)',
    shown: (d) => (d.adminToken ? 'set' : 'none (operator API off)'),
    read: (v, s) => {
      if (v.length === 0) throw new SettingsError('--admin-token must not be empty');
      s.adminToken = v;
    },
  },
  {
    flag: 'product',
    env: 'SDP_PRODUCT',
    format: 'WORD',
    summary: 'the product path word (/insight/...)',
    shown: (d) => d.product,
    read: (v, s) => {
      if (!/^[a-z0-9_-]{1,40}$/i.test(v)) throw new SettingsError(`--product must be one path word, not "${v}"`);
      s.product = v;
    },
  },
  { flag: 'accounts', env: 'SDP_ACCOUNTS', format: 'FILE.json', summary: 'accounts to open at start (docs/server.md); no demo account then', shown: (d) => orNone(d.accountsFile), read: (v, s) => void (s.accountsFile = v) },
  {
    flag: 'limiting-day',
    env: 'SDP_LIMITING_DAY',
    format: 'pst|america-los-angeles',
    summary: 'the day daily limits count in (docs/limits-days.md)',
    shown: (d) => d.limitingDay,
    read: (v, s) => {
      if (v !== 'pst' && v !== 'america-los-angeles') throw new SettingsError(`--limiting-day must be pst or america-los-angeles, not "${v}"`);
      s.limitingDay = v;
    },
  },
  { flag: 'body-limit', env: 'SDP_BODY_LIMIT', format: 'BYTES', summary: 'larger request bodies answer 413', shown: (d) => String(d.bodyLimit), read: (v, s) => void (s.bodyLimit = wholeNumber('--body-limit', v, 1024, 1024 ** 3)) },
  { flag: 'access-log', env: 'SDP_ACCESS_LOG', format: 'stdout|off|FILE', summary: 'where one line per request goes', shown: (d) => d.accessLog, read: (v, s) => void (s.accessLog = v) },
  {
    flag: 'workers',
    env: 'SDP_WORKERS',
    format: 'N',
    summary: 'server processes sharing the port, one per core at most (SQLite or PostgreSQL store, system clock)',
    shown: (d) => String(d.workers),
    read: (v, s) => void (s.workers = wholeNumber('--workers', v, 1, 256)),
  },
  {
    flag: 'routing',
    env: 'SDP_ROUTING',
    format: 'any|account',
    summary: "account: a load balancer sends each account's calls to one server (nginx hash on the username), which then trusts its cached states (docs/scaling.md)",
    shown: (d) => d.routing,
    read: (v, s) => {
      if (v !== 'any' && v !== 'account') throw new SettingsError(`--routing must be any or account, not "${v}"`);
      s.routing = v;
    },
  },
  {
    flag: 'push-allowed-hosts',
    env: 'SDP_PUSH_ALLOWED_HOSTS',
    format: 'HOST,HOST',
    summary: 'hosts http push subscriptions may deliver to; any other destination answers 400 (docs/push.md)',
    shown: (d) => d.pushAllowedHosts.join(','),
    read: (v, s) => void (s.pushAllowedHosts = v.split(',').map((h) => h.trim()).filter((h) => h !== '')),
  },
  {
    flag: 'max-connections',
    env: 'SDP_MAX_CONNECTIONS',
    format: 'N',
    summary: 'connections held at once by each server process; more are closed as they come (docs/limits.md#sockets)',
    shown: (d) => (d.maxConnections === undefined ? `the descriptor limit less 256` : String(d.maxConnections)),
    read: (v, s) => void (s.maxConnections = wholeNumber('--max-connections', v, 1, 10_000_000)),
  },
  {
    flag: 'max-connections-per-address',
    env: 'SDP_MAX_CONNECTIONS_PER_ADDRESS',
    format: 'N',
    summary: 'connections one client address may hold at once on each server process; more are closed as they come',
    shown: (d) => String(d.maxConnectionsPerAddress ?? DEFAULT_MAX_PER_ADDRESS),
    read: (v, s) => void (s.maxConnectionsPerAddress = wholeNumber('--max-connections-per-address', v, 1, 10_000_000)),
  },
  {
    flag: 'rate-limit-headers',
    env: 'SDP_RATE_LIMIT_HEADERS',
    format: 'x|ietf|both',
    summary: 'rate-limit fields: X-RateLimit-*, the IETF draft RateLimit-Policy and RateLimit, or both (docs/rate-limit-headers.md)',
    shown: (d) => d.rateLimitHeaders ?? 'x',
    read: (v, s) => {
      if (v !== 'x' && v !== 'ietf' && v !== 'both') throw new SettingsError(`--rate-limit-headers must be x, ietf or both, not "${v}"`);
      s.rateLimitHeaders = v;
    },
  },
];

/** What a setting combination cannot do, said before anything starts. */
export function checkSettings(s: ServerSettings): void {
  if (s.workers > 1 && s.store === 'memory:') {
    throw new SettingsError('--workers above 1 needs a store the processes share (sqlite:PATH or postgres://...); each process would have its own memory: store');
  }
  if (s.workers > 1 && s.clock === 'manual') {
    throw new SettingsError('--workers above 1 needs the system clock; each process would have its own manual clock');
  }
}

export function defaultSettings(): ServerSettings {
  return {
    port: 8080,
    host: '127.0.0.1',
    store: 'sqlite:./data/sdp.db',
    clock: 'system',
    clockStartMs: undefined,
    adminToken: undefined,
    product: 'insight',
    accountsFile: undefined,
    limitingDay: 'pst',
    bodyLimit: 4 * 1024 * 1024,
    accessLog: 'stdout',
    workers: 1,
    routing: 'any',
    pushAllowedHosts: [...LOOPBACK_HOSTS],
  };
}

/**
 * Reads flags into `into`: flags win over environment variables, which win over what `into` holds.
 * `--flag value` and `--flag=value`; a flag given twice keeps the last. Returns the arguments that are
 * not flags, in order; a command that takes none refuses them.
 *
 * The command line is split by node:util `parseArgs` (options from the table, every one a string); this
 * function only adds the environment and reads each value through its setting, in the order given, so the
 * first bad value is the one named.
 */
export function readFlags<T>(argv: string[], env: Record<string, string | undefined>, table: readonly Setting<T>[], into: T): string[] {
  for (const setting of table) {
    const v = setting.env === undefined ? undefined : env[setting.env];
    if (v !== undefined && v !== '') setting.read(v, into);
  }
  let tokens;
  try {
    ({ tokens } = parseArgs({ args: argv, options: Object.fromEntries(table.map((x) => [x.flag, { type: 'string' as const }])), strict: true, allowPositionals: true, tokens: true }));
  } catch (error) {
    throw argumentError(error as NodeJS.ErrnoException);
  }
  const positional: string[] = [];
  for (const token of tokens) {
    if (token.kind === 'positional') positional.push(token.value);
    else if (token.kind === 'option') table.find((x) => x.flag === token.name)!.read(token.value ?? '', into);
  }
  return positional;
}

/** parseArgs's refusals in this command's words: the argument as typed, or the flag that lacks its value. */
function argumentError(error: NodeJS.ErrnoException): Error {
  const named = /'(-[^' ]*)/.exec(error.message)?.[1];
  if (error.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') return new SettingsError(`unknown argument "${named ?? error.message}"`);
  if (error.code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' && named) return new SettingsError(`${named} needs a value`);
  return new SettingsError(error.message);
}

/** Reads the settings of `sdp serve`; it takes no other arguments. */
export function readSettings(argv: string[], env: Record<string, string | undefined> = {}): ServerSettings {
  const s = defaultSettings();
  const rest = readFlags(argv, env, SERVE_SETTINGS, s);
  if (rest.length > 0) throw new SettingsError(`unknown argument "${rest[0]}"`);
  checkSettings(s);
  return s;
}

/** The flags part of a help text: one entry per flag with its form, meaning, default and variable. */
export function flagsHelp<T>(table: readonly Setting<T>[], defaults: T): string {
  return table
    .map((x) => {
      const head = `  --${x.flag} ${x.format}`;
      const tail = `default ${x.shown(defaults)}${x.env ? `; env ${x.env}` : ''}`;
      return `${head}\n      ${x.summary} (${tail})`;
    })
    .join('\n');
}
