import { Conflict, createEngine } from '@sdp/core';
import { randomIds, SystemClock } from '@sdp/clock';
import { seeDocs, type Command } from './command.ts';
import { demoCurl } from './demo-account.ts';
import { openStore } from './open-store.ts';
import { defaultSettings, flagsHelp, readFlags, SERVE_SETTINGS, SettingsError, type ServerSettings, type Setting } from './settings.ts';

interface AccountsOptions extends ServerSettings {
  apiKey: string | undefined;
  packageJson: string | undefined;
}

/** The serve settings that say where the store is and where the server answers (for the curl line). */
const SHARED = new Set(['store', 'host', 'port', 'product', 'limiting-day']);

/** What a shared flag means here: where the server that will serve the account answers, not a listener. */
const HERE: Record<string, string> = {
  port: 'the port of the server that serves the account (for the curl line printed)',
  host: 'the host of the server that serves the account (for the curl line printed)',
};

const ACCOUNTS_SETTINGS: Setting<AccountsOptions>[] = [
  ...(SERVE_SETTINGS.filter((s) => SHARED.has(s.flag)).map((s) => (HERE[s.flag] ? { ...s, summary: HERE[s.flag]! } : s)) as unknown as Setting<AccountsOptions>[]),
  { flag: 'api-key', format: 'KEY', summary: 'the key to set (8 to 128 printable ASCII characters, no spaces, colons or commas)', shown: () => 'a random 32-hex-digit key', read: (v, s) => void (s.apiKey = v) },
  {
    flag: 'package',
    format: 'JSON',
    summary: 'create only: package fields, e.g. \'{"credits_per_hour":20000}\' (docs/limits.md)',
    shown: () => 'the default package',
    read: (v, s) => void (s.packageJson = v),
  },
];

const USAGE = `usage: sdp accounts create NAME [flags]
       sdp accounts rotate-key NAME [flags]

create opens an account; rotate-key gives an existing one a new key (the old key stops working; its
identities' keys keep working). Both print the key once (only its hash is kept) and a curl line to try it.
Run them beside a running server on the same --store, or before starting it.

Flags:
${flagsHelp(ACCOUNTS_SETTINGS, { ...defaultSettings(), apiKey: undefined, packageJson: undefined })}

${seeDocs('docs/server.md')}`;

/** Whether the port was chosen (flag or environment) rather than left at the default. */
function portGiven(argv: string[], env: Record<string, string | undefined>): boolean {
  return env.SDP_PORT !== undefined || argv.some((a) => a === '--port' || a.startsWith('--port='));
}

export const accountsCommand: Command = {
  name: 'accounts',
  summary: 'create an account or give one a new API key, printing a curl line',
  help: () => USAGE,
  async run(argv, env) {
    const options: AccountsOptions = { ...defaultSettings(), apiKey: undefined, packageJson: undefined };
    const [action, username, ...extra] = readFlags(argv, env, ACCOUNTS_SETTINGS, options);
    if (action !== 'create' && action !== 'rotate-key') throw new SettingsError(action === undefined ? 'which: create or rotate-key?' : `unknown action "${action}"`);
    if (username === undefined) throw new SettingsError(`sdp accounts ${action} needs an account name`);
    if (extra.length > 0) throw new SettingsError(`unknown argument "${extra[0]}"`);
    let pkg: unknown;
    if (options.packageJson !== undefined) {
      if (action !== 'create') throw new SettingsError('--package is for create; change a package with the operator API');
      try {
        pkg = JSON.parse(options.packageJson);
      } catch {
        throw new SettingsError(`--package must be JSON, not ${options.packageJson}`);
      }
    }
    if (options.store === 'memory:') {
      // The account would live in this command's memory and vanish as it exits, with its key printed.
      throw new SettingsError('--store memory: keeps nothing after this command; name the server\'s SQLite file or PostgreSQL URL, or open the account through a running server (POST /_admin/accounts)');
    }
    const { store } = await openStore(options.store);
    try {
      const engine = createEngine({ store, clock: new SystemClock(), ids: randomIds(), settings: { limitingDay: options.limitingDay } });
      const apiKey = options.apiKey;
      const storeFlag = options.store === defaultSettings().store ? '' : ` --store '${options.store}'`;
      let made;
      try {
        made =
          action === 'create'
            ? await engine.openAccount({ username, ...(apiKey ? { api_key: apiKey } : {}), ...(pkg !== undefined ? { package: pkg } : {}) })
            : await engine.replaceApiKey(username, ...(apiKey ? [apiKey] : []));
      } catch (error) {
        // Docs and first tries reuse names (alice, demo): the way on is a new key, not a second account.
        if (error instanceof Conflict && action === 'create') {
          throw new Error(`${error.message} in ${options.store}; for a working key of it: npx sdp accounts rotate-key ${username}${storeFlag}`);
        }
        throw error;
      }
      const base = `http://${options.host === '0.0.0.0' ? '127.0.0.1' : options.host}:${options.port}`;
      // Nothing tells this command where a server listens: the port is the flag's or SDP_PORT's, and the
      // line says so, since a curl at the wrong port only answers "connection refused".
      const portSource = portGiven(argv, env) ? '' : `; a server on another port: add --port N (sdp serve prints this command with its port)`;
      process.stdout.write(`${action === 'create' ? 'account created' : 'key replaced'}: username ${made.username}, API key ${made.api_key} (shown once; only its hash is kept)\n`);
      process.stdout.write(`try it (with sdp serve on ${base}${portSource}):\n  ${demoCurl(engine, base, { username: made.username, apiKey: made.api_key })}\n`);
    } finally {
      await store.close();
    }
  },
};
