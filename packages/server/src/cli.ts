#!/usr/bin/env tsx
/**
 * `sdp serve [flags]` runs the server of server.md; `sdp sim ...` hands over to the simulator.
 */
import { readSettings, SettingsError, USAGE } from './settings.ts';
import { startServer } from './server.ts';

async function serve(argv: string[]): Promise<void> {
  const settings = readSettings(argv, process.env);
  const running = await startServer(settings);
  const out = (line: string) => process.stdout.write(line + '\n');
  out(`store: ${running.storeDescription}`);
  out(`clock: ${settings.clock}${settings.clock === 'manual' ? ` at ${new Date(running.clock.now()).toISOString()}` : ''}`);
  out(`operator API: ${settings.adminToken ? 'on (Authorization: Bearer <admin token>)' : 'off (set --admin-token to enable)'}`);
  if (running.accounts.opened.length + running.accounts.existing.length > 0) {
    out(`accounts: opened ${running.accounts.opened.join(', ') || 'none'}; already there ${running.accounts.existing.join(', ') || 'none'}`);
  }
  if (running.demo) {
    out(`demo account created: username ${running.demo.username}, API key ${running.demo.apiKey} (shown once; only its hash is kept)`);
    out(`try it:`);
    out(`  ${running.demo.curl}`);
  }
  out(`listening on ${running.url}`);

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
    running.close().then(
      () => process.exit(0),
      (error) => {
        process.stderr.write(`error while closing: ${(error as Error).message}\n`);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}

async function sim(argv: string[]): Promise<void> {
  // Imported on demand: the server runs without the simulator package.
  const name = '@sdp/sim';
  let mod: { simMain?: (argv: string[]) => Promise<number | void> | number | void };
  try {
    mod = (await import(name)) as typeof mod;
  } catch (error) {
    throw new Error(`sdp sim needs the @sdp/sim package: ${(error as Error).message}`);
  }
  if (typeof mod.simMain !== 'function') throw new Error('@sdp/sim exports no simMain');
  const code = await mod.simMain(argv);
  if (typeof code === 'number') process.exitCode = code;
}

export async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  try {
    if (command === 'serve') await serve(rest);
    else if (command === 'sim') await sim(rest);
    else if (command === 'export') process.exitCode = await (await import('./commands/export-events.ts')).exportCommand(rest);
    else if (command === 'openapi') process.exitCode = (await import('./commands/openapi.ts')).openApiCommand(rest);
    else if (command === 'import') process.exitCode = await (await import('./commands/import-events.ts')).importCommand(rest);
    else if (command === undefined || command === '--help' || command === '-h' || command === 'help') process.stdout.write(USAGE + '\n');
    else throw new SettingsError(`unknown command "${command}"\n\n${USAGE}`);
  } catch (error) {
    process.stderr.write(`sdp: ${(error as Error).message}\n`);
    process.exit(2);
  }
}

await main(process.argv.slice(2));
