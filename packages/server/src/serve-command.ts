import { seeDocs, type Command } from './command.ts';
import { stopWhenNpmStartEnds } from './npm-start-parent.ts';
import { startServer } from './server.ts';
import { defaultSettings, flagsHelp, readSettings, SERVE_SETTINGS, type ServerSettings } from './settings.ts';
import { isWorker, runWorker, startPrimary, type StartReport } from './workers.ts';

export const serveCommand: Command = {
  name: 'serve',
  summary: 'run the API server (and the operator API with --admin-token)',
  help: () => `usage: sdp serve [flags]

Runs the platform's REST API. On the first start over an empty store it opens a demo account and prints
its key and a curl line; later, \`sdp accounts create\` or \`sdp accounts rotate-key\` give a working key.

Flags (flags win over environment variables, which win over the defaults; --flag VALUE or --flag=VALUE):
${flagsHelp(SERVE_SETTINGS, defaultSettings())}

${seeDocs('docs/server.md')}`,
  async run(argv, env) {
    const settings = readSettings(argv, env);
    if (isWorker()) return runWorker(settings);
    const out = (line: string) => process.stdout.write(line + '\n');
    if (settings.workers > 1) {
      const primary = await startPrimary(settings, (line) => process.stderr.write(line + '\n')).catch(explainBusyPort);
      // Before the lines a supervisor waits for: a signal sent the moment it reads them stops cleanly.
      onSignals(() => primary.stop(), env);
      printStart(out, settings, { ...primary, clockNow: Date.now() });
      return;
    }
    const running = await startServer(settings).catch(explainBusyPort);
    onSignals(() => running.close(), env);
    printStart(out, settings, { ...running, clockNow: running.clock.now() });
  },
};

/**
 * Node's own words (`listen EADDRINUSE: address already in use 127.0.0.1:8080`) leave a newcomer, most
 * often with an earlier `npm start` still running, without the way out: the flag and the variable.
 */
function explainBusyPort(error: unknown): never {
  const e = error as NodeJS.ErrnoException & { port?: number; address?: string };
  if (e?.code === 'EADDRINUSE') {
    const where = e.port !== undefined ? `port ${e.port}${e.address ? ` on ${e.address}` : ''}` : 'the port';
    throw new Error(`${where} is already in use (another sdp serve still running?); choose another with --port N or SDP_PORT=N (0: any free port)`);
  }
  throw error;
}

function printStart(out: (line: string) => void, settings: ServerSettings, started: StartReport & { clockNow: number }): void {
  out(`store: ${started.storeDescription}`);
  out(`clock: ${settings.clock}${settings.clock === 'manual' ? ` at ${new Date(started.clockNow).toISOString()}` : ''}`);
  if (settings.workers > 1) out(`workers: ${settings.workers} processes; each account's connections go to one of them`);
  out(`operator API: ${settings.adminToken ? 'on (Authorization: Bearer <admin token>)' : 'off (set --admin-token to enable)'}`);
  if (started.accounts.opened.length + started.accounts.existing.length > 0) {
    out(`accounts: opened ${started.accounts.opened.join(', ') || 'none'}; already there ${started.accounts.existing.join(', ') || 'none'}`);
  }
  for (const { username, apiKey } of started.accounts.generated) out(`account ${username}: API key ${apiKey} (generated; shown once, only its hash is kept)`);
  if (started.demo) {
    out(`demo account created: username ${started.demo.username}, API key ${started.demo.apiKey} (shown once; only its hash is kept)`);
    out(`try it:`);
    out(`  ${started.demo.curl}`);
  } else {
    // The accounts command cannot see this process: the port it listens on travels in the printed line,
    // so the curl line that command prints reaches this server and not the default port.
    const port = Number(new URL(started.url).port || 80);
    const flags = `${settings.store === defaultSettings().store ? '' : ` --store '${settings.store}'`}${port === defaultSettings().port ? '' : ` --port ${port}`}`;
    out(`a working key: npx sdp accounts create NAME${flags}  (or: npx sdp accounts rotate-key demo${flags})`);
  }
  out(`listening on ${started.url}`);
  // The token rides in the fragment, which browsers never send: the page moves it into the tab's storage
  // and out of the address bar (docs/console.md).
  if (settings.adminToken) out(`console: ${started.url}/_console/#token=${encodeURIComponent(settings.adminToken)}`);
  if (started.streamUrl) out(`stream on ${started.streamUrl}`);
}

/**
 * SIGINT or SIGTERM, or the end of the `npm start` that ran it: stop cleanly; a second signal, or a stop
 * still running after 10 s, exits at once.
 */
function onSignals(close: () => Promise<void>, env: Record<string, string | undefined>): void {
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) {
      process.stderr.write(`${signal} again: exiting now\n`);
      process.exit(1);
    }
    stopping = true;
    process.stderr.write(`${signal}: finishing in-flight requests, then closing the store\n`);
    const force = setTimeout(() => {
      process.stderr.write('requests still running after 10 s: exiting\n');
      process.exit(1);
    }, 10_000);
    force.unref();
    close().then(
      () => process.exit(0),
      (error) => {
        process.stderr.write(`error while closing: ${(error as Error).message}\n`);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
  stopWhenNpmStartEnds(env, () => stop('npm start ended'));
}
