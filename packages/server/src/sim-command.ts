import type { Command } from './command.ts';

export const simCommand: Command = {
  name: 'sim',
  summary: 'run billing scenarios on a manual clock (sdp sim --help; docs/simulator.md)',
  help: () => 'usage: sdp sim SCENARIO.yaml [flags]: see sdp sim --help and docs/simulator.md',
  async run(argv) {
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
    return typeof code === 'number' ? code : undefined;
  },
};
