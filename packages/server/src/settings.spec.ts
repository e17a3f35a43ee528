import { describe, expect, it } from 'vitest';
import { defaultSettings, readSettings, SettingsError } from './settings.ts';

describe('readSettings (docs/contract.md#settings flags and variables)', () => {
  it('has the defaults of docs/contract.md#settings', () => {
    expect(readSettings([])).toMatchObject({ port: 8080, host: '127.0.0.1', store: 'sqlite:./data/sdp.db', clock: 'system', product: 'insight', limitingDay: 'pst', adminToken: undefined });
    expect(defaultSettings().bodyLimit).toBe(4 * 1024 * 1024);
    expect(readSettings([], { SDP_PUSH_ALLOWED_HOSTS: 'a.test,b.test' }).pushAllowedHosts).toEqual(['a.test', 'b.test']);
    expect(defaultSettings().routing).toBe('any');
    expect(readSettings([], { SDP_ROUTING: 'account' }).routing).toBe('account');
    expect(defaultSettings().pushAllowedHosts).toEqual(['127.0.0.1', 'localhost', '::1']);
  });
  it('reads every flag, in both spellings, over the environment', () => {
    const s = readSettings(
      ['--port', '0', '--host=0.0.0.0', '--store', 'memory:', '--clock', 'manual', '--clock-start', '1700000000', '--admin-token', 't', '--product', 'pylon', '--accounts', 'a.json', '--limiting-day', 'america-los-angeles', '--body-limit', '2048', '--access-log', 'off', '--push-allowed-hosts', 'hooks.example.test, 127.0.0.1', '--routing', 'account'],
      { SDP_PORT: '9999', SDP_PRODUCT: 'other' },
    );
    expect(s).toEqual({ port: 0, host: '0.0.0.0', store: 'memory:', clock: 'manual', clockStartMs: 1_700_000_000_000, adminToken: 't', product: 'pylon', accountsFile: 'a.json', limitingDay: 'america-los-angeles', bodyLimit: 2048, accessLog: 'off', pushAllowedHosts: ['hooks.example.test', '127.0.0.1'], workers: 1, routing: 'account' });
  });
  it('reads every variable', () => {
    const s = readSettings([], { SDP_PORT: '81', SDP_HOST: 'h', SDP_STORE: 'postgres://u@h/db', SDP_CLOCK: 'manual', SDP_CLOCK_START: '10', SDP_ADMIN_TOKEN: 'x', SDP_PRODUCT: 'p', SDP_ACCOUNTS: 'f', SDP_LIMITING_DAY: 'pst' });
    expect(s).toMatchObject({ port: 81, host: 'h', store: 'postgres://u@h/db', clock: 'manual', clockStartMs: 10_000, adminToken: 'x', product: 'p', accountsFile: 'f' });
  });
  it('refuses bad values and unknown flags by name', () => {
    for (const argv of [['--port', '70000'], ['--port', 'x'], ['--store', 'mysql://x'], ['--clock', 'fast'], ['--limiting-day', 'utc'], ['--routing', 'sticky'], ['--nope'], ['--port'], ['serve']]) {
      expect(() => readSettings(argv), argv.join(' ')).toThrow(SettingsError);
    }
  });
  it('refuses --workers above 1 where processes could not share state: the memory store, a manual clock', () => {
    expect(readSettings(['--workers', '4', '--store', 'sqlite:x.db']).workers).toBe(4);
    expect(readSettings([], { SDP_WORKERS: '2', SDP_STORE: 'postgres://u@h/db' }).workers).toBe(2);
    expect(() => readSettings(['--workers', '2', '--store', 'memory:'])).toThrow(/needs a store the processes share/);
    expect(() => readSettings(['--workers', '2', '--store', 'sqlite:x.db', '--clock', 'manual'])).toThrow(/needs the system clock/);
    for (const v of ['0', '-1', '1.5', 'many']) expect(() => readSettings(['--workers', v]), v).toThrow(SettingsError);
  });
});

describe('the command line, split by node:util parseArgs', () => {
  it('names the argument it refuses and the flag that lacks its value, as before', () => {
    expect(() => readSettings(['--nope'])).toThrow('unknown argument "--nope"');
    expect(() => readSettings(['-p', '80'])).toThrow('unknown argument "-p"');
    expect(() => readSettings(['serve'])).toThrow('unknown argument "serve"');
    expect(() => readSettings(['--port'])).toThrow('--port needs a value');
    // A flag followed by another flag lacks its value (it was once read as the value).
    expect(() => readSettings(['--port', '--host', 'h'])).toThrow('--port needs a value');
    expect(() => readSettings(['--port='])).toThrow('--port must be a whole number from 0 to 65535, not ""');
  });
  it('keeps the last of a flag given twice, and reads flags in the order given', () => {
    expect(readSettings(['--port', '81', '--port=82']).port).toBe(82);
    expect(() => readSettings(['--clock', 'fast', '--port', 'x'])).toThrow(/--clock/);
  });
});

describe('--rate-limit-headers (issue 13)', () => {
  it('reads the flag and SDP_RATE_LIMIT_HEADERS, and refuses other values', () => {
    expect(readSettings(['--rate-limit-headers', 'ietf']).rateLimitHeaders).toBe('ietf');
    expect(readSettings([], { SDP_RATE_LIMIT_HEADERS: 'both' }).rateLimitHeaders).toBe('both');
    expect(readSettings([]).rateLimitHeaders ?? 'x').toBe('x');
    expect(() => readSettings(['--rate-limit-headers=draft'])).toThrow(/x, ietf or both/);
  });
});
