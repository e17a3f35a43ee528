import { readFile } from 'node:fs/promises';
import { importEvents, parseEventLines } from '../event-log.ts';
import { openStore } from '../open-store.ts';

export const IMPORT_USAGE = 'sdp import --store URL FILE   (NDJSON as exported, into an empty store)';

/** `sdp import`: an exported log into an empty store, the same as `POST /_admin/events`. */
export async function importCommand(argv: string[], env: Record<string, string | undefined> = process.env): Promise<number> {
  let url = env.SDP_STORE;
  let file: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--store') url = argv[++i];
    else if (a.startsWith('--store=')) url = a.slice('--store='.length);
    else if (a.startsWith('--')) throw new Error(`unknown flag ${a}\n${IMPORT_USAGE}`);
    else if (file === undefined) file = a;
    else throw new Error(`one file only\n${IMPORT_USAGE}`);
  }
  if (!url) throw new Error(`--store is required (or SDP_STORE)\n${IMPORT_USAGE}`);
  if (!file) throw new Error(`the file to import is required\n${IMPORT_USAGE}`);
  // Checked whole before the store is opened: bad input writes nothing.
  const events = parseEventLines(await readFile(file, 'utf8'));
  const { store } = await openStore(url);
  try {
    const n = await importEvents(store, events);
    // Said, so that an export's line count that differs from what was imported is not a surprise.
    const left = events.length - n;
    process.stderr.write(`imported ${n} events from ${file}${left > 0 ? ` (left out ${left} of the stream relay, which is transient: docs/portable-state.md)` : ''}\n`);
  } finally {
    await store.close();
  }
  return 0;
}
