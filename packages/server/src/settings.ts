import type { LimitingDayMode } from '@sdp/core';
import type { RateLimitHeaders } from '@sdp/http';

/** Every setting of `sdp serve` (server.md): each a flag, each also readable from an environment variable. */
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
  /** Request bodies over this many bytes answer 413 (decisions §7). */
  bodyLimit: number;
  /** `stdout`, `off`, or a file the access log is appended to. */
  accessLog: string;
  /** `x` (the five X-RateLimit-* fields), `ietf` (RateLimit-Policy and RateLimit), or `both`. */
  rateLimitHeaders?: RateLimitHeaders;
}

export class SettingsError extends Error {}

interface Setting {
  flag: string;
  env: string;
  read(value: string, into: ServerSettings): void;
}

const wholeNumber = (name: string, value: string, min: number, max: number): number => {
  if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max) throw new SettingsError(`${name} must be a whole number from ${min} to ${max}, not "${value}"`);
  return Number(value);
};

const SETTINGS: Setting[] = [
  { flag: 'port', env: 'SDP_PORT', read: (v, s) => void (s.port = wholeNumber('--port', v, 0, 65535)) },
  { flag: 'host', env: 'SDP_HOST', read: (v, s) => void (s.host = v) },
  {
    flag: 'store',
    env: 'SDP_STORE',
    read: (v, s) => {
      if (!/^(memory:|sqlite:.+|postgres(ql)?:\/\/.+)$/.test(v)) throw new SettingsError(`--store must be memory:, sqlite:PATH or postgres://..., not "${v}"`);
      s.store = v;
    },
  },
  {
    flag: 'clock',
    env: 'SDP_CLOCK',
    read: (v, s) => {
      if (v !== 'system' && v !== 'manual') throw new SettingsError(`--clock must be system or manual, not "${v}"`);
      s.clock = v;
    },
  },
  {
    flag: 'clock-start',
    env: 'SDP_CLOCK_START',
    read: (v, s) => {
      if (!/^\d+(\.\d+)?$/.test(v)) throw new SettingsError(`--clock-start must be a Unix time in seconds, not "${v}"`);
      s.clockStartMs = Math.round(Number(v) * 1000);
    },
  },
  {
    flag: 'admin-token',
    env: 'SDP_ADMIN_TOKEN',
    read: (v, s) => {
      if (v.length === 0) throw new SettingsError('--admin-token must not be empty');
      s.adminToken = v;
    },
  },
  {
    flag: 'product',
    env: 'SDP_PRODUCT',
    read: (v, s) => {
      if (!/^[a-z0-9_-]{1,40}$/i.test(v)) throw new SettingsError(`--product must be one path word, not "${v}"`);
      s.product = v;
    },
  },
  { flag: 'accounts', env: 'SDP_ACCOUNTS', read: (v, s) => void (s.accountsFile = v) },
  {
    flag: 'limiting-day',
    env: 'SDP_LIMITING_DAY',
    read: (v, s) => {
      if (v !== 'pst' && v !== 'america-los-angeles') throw new SettingsError(`--limiting-day must be pst or america-los-angeles, not "${v}"`);
      s.limitingDay = v;
    },
  },
  { flag: 'body-limit', env: 'SDP_BODY_LIMIT', read: (v, s) => void (s.bodyLimit = wholeNumber('--body-limit', v, 1024, 1024 ** 3)) },
  { flag: 'access-log', env: 'SDP_ACCESS_LOG', read: (v, s) => void (s.accessLog = v) },
  {
    flag: 'rate-limit-headers',
    env: 'SDP_RATE_LIMIT_HEADERS',
    read: (v, s) => {
      if (v !== 'x' && v !== 'ietf' && v !== 'both') throw new SettingsError(`--rate-limit-headers must be x, ietf or both, not "${v}"`);
      s.rateLimitHeaders = v;
    },
  },
];

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
  };
}

/** Flags win over environment variables, which win over the defaults. `--flag value` and `--flag=value`. */
export function readSettings(argv: string[], env: Record<string, string | undefined> = {}): ServerSettings {
  const s = defaultSettings();
  for (const setting of SETTINGS) {
    const v = env[setting.env];
    if (v !== undefined && v !== '') setting.read(v, s);
  }
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const m = /^--([a-z-]+)(?:=(.*))?$/s.exec(arg);
    const setting = m && SETTINGS.find((x) => x.flag === m[1]);
    if (!m || !setting) throw new SettingsError(`unknown argument "${arg}"; see sdp --help`);
    let value = m[2];
    if (value === undefined) {
      value = argv[++i];
      if (value === undefined) throw new SettingsError(`--${setting.flag} needs a value`);
    }
    setting.read(value, s);
  }
  return s;
}

export const USAGE = `sdp: the social-data platform server

  sdp serve [flags]     run the API server
  sdp sim ...           run billing scenarios (see docs/sim.md)
  sdp export --store URL [FILE]   the event log as NDJSON (docs/portable-state.md)
  sdp import --store URL FILE     an exported log into an empty store
  sdp openapi --version 1.5 [FILE]  the OpenAPI 3.1 document of a version (docs/openapi.md)

Flags of serve (each also an environment variable):
${SETTINGS.map((x) => `  --${x.flag.padEnd(14)} ${x.env}`).join('\n')}
See docs/server.md.`;
