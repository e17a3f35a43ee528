/**
 * A subcommand of `sdp`. `cli.ts` holds the list; a new subcommand is a file exporting one of these and
 * one line in that list. `run` returns the exit code (or nothing for 0); a `SettingsError` it throws is
 * printed with a pointer to the command's help and exits 2.
 */
export interface Command {
  name: string;
  /** One line for `sdp --help`. */
  summary: string;
  /** The whole text of `sdp NAME --help`. */
  help(): string;
  run(argv: string[], env: Record<string, string | undefined>): Promise<number | void>;
}

/** Where the docs are for help texts: the package's README on disk, and the project's pages. */
export const DOCS = 'docs/server.md in the sdp repository (also the README of @sdp/server)';

export const wantsHelp = (argv: readonly string[]): boolean => argv.includes('--help') || argv.includes('-h');
