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

/**
 * The pointer at the end of a help text. The docs/ pages live in the sdp repository and are not in the
 * installed package, so the help names what an install does carry as well: the package's README.
 */
export const seeDocs = (...pages: string[]): string =>
  `More: ${pages.join(', ')} in the sdp repository; installed, node_modules/@sdp/server/README.md.`;

export const wantsHelp = (argv: readonly string[]): boolean => argv.includes('--help') || argv.includes('-h');
