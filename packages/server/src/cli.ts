#!/usr/bin/env node
/**
 * `sdp COMMAND [args]`: the commands are the list below; each lives in its own file (see command.ts).
 */
import { readFileSync } from 'node:fs';
import { accountsCommand } from './accounts-command.ts';
import { seeDocs, wantsHelp, type Command } from './command.ts';
import { serveCommand } from './serve-command.ts';
import { SettingsError } from './settings.ts';
import { simCommand } from './sim-command.ts';
import { exportEventsCommand, importEventsCommand, openApiDocumentCommand } from './toolbox-commands.ts';

/** Every subcommand of `sdp`, in the order help lists them. Add one here. */
const COMMANDS: Command[] = [serveCommand, accountsCommand, simCommand, exportEventsCommand, importEventsCommand, openApiDocumentCommand];

/** Read from the package's own package.json, beside `src/` and `dist/` alike. */
function version(): string {
  return (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;
}

function usage(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length)) + 2;
  return `sdp ${version()}: the social-data platform's REST API as a local server

usage: sdp COMMAND [flags]

${COMMANDS.map((c) => `  sdp ${c.name.padEnd(width)}${c.summary}`).join('\n')}

  sdp COMMAND --help    the command's flags, each with its default and environment variable
  sdp --version         the version

${seeDocs('docs/server.md', 'docs/simulator.md')} In a clone, npm start runs sdp serve.`;
}

export async function main(argv: string[], env: Record<string, string | undefined> = process.env): Promise<void> {
  const [name, ...rest] = argv;
  if (name === '--version' || name === '-v' || name === 'version') {
    process.stdout.write(version() + '\n');
    return;
  }
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(usage() + '\n');
    return;
  }
  const command = COMMANDS.find((c) => c.name === name);
  if (!command) {
    process.stderr.write(`sdp: unknown command "${name}"\n\n${usage()}\n`);
    process.exit(2);
  }
  // The simulator reads its own help flag.
  if (command.name !== 'sim' && wantsHelp(rest)) {
    process.stdout.write(command.help() + '\n');
    return;
  }
  try {
    const code = await command.run(rest, env);
    if (typeof code === 'number') process.exitCode = code;
  } catch (error) {
    const hint = error instanceof SettingsError ? `; see sdp ${command.name} --help` : '';
    process.stderr.write(`sdp ${command.name}: ${(error as Error).message}${hint}\n`);
    process.exit(2);
  }
}

// A reader that stops early (`sdp openapi | head -c 50`) closes the pipe: the output is no longer wanted,
// which is no error of ours, so the command ends quietly instead of with a stack.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(0);
  throw error;
});

await main(process.argv.slice(2));
