import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import type { Writable } from 'node:stream';
import { exportEvents } from '../event-log.ts';
import { openStore } from '../open-store.ts';

export const EXPORT_USAGE = 'sdp export --store URL [--after POS] [--limit N] [FILE]   (NDJSON to FILE, or to standard output)';

/** `sdp export`: the store's event log as NDJSON, the same lines as `GET /_admin/events`. */
export async function exportCommand(argv: string[], env: Record<string, string | undefined> = process.env, stdout: Writable = process.stdout): Promise<number> {
  const { store: url, after, limit, file } = readArgs(argv, env);
  const { store } = await openStore(url);
  const out = file ? createWriteStream(file) : stdout;
  let count = 0;
  try {
    for await (const line of exportEvents(store, after, limit)) {
      count++;
      if (!out.write(line + '\n')) await once(out, 'drain');
    }
  } finally {
    await store.close();
    if (file) await new Promise<void>((resolve, reject) => out.end((e?: Error | null) => (e ? reject(e) : resolve())));
  }
  if (file) process.stderr.write(`exported ${count} events to ${file}\n`);
  return 0;
}

function readArgs(argv: string[], env: Record<string, string | undefined>): { store: string; after: number; limit: number; file?: string } {
  let store = env.SDP_STORE;
  let after = 0;
  let limit = Number.POSITIVE_INFINITY;
  let file: string | undefined;
  const number = (name: string, raw: string | undefined): number => {
    if (raw === undefined || !/^\d+$/.test(raw)) throw new Error(`${name} needs a whole number\n${EXPORT_USAGE}`);
    return Number(raw);
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--store') store = argv[++i];
    else if (a.startsWith('--store=')) store = a.slice('--store='.length);
    else if (a === '--after') after = number('--after', argv[++i]);
    else if (a === '--limit') limit = number('--limit', argv[++i]);
    else if (a.startsWith('--')) throw new Error(`unknown flag ${a}\n${EXPORT_USAGE}`);
    else if (file === undefined) file = a;
    else throw new Error(`one file at most\n${EXPORT_USAGE}`);
  }
  if (!store) throw new Error(`--store is required (or SDP_STORE)\n${EXPORT_USAGE}`);
  return { store, after, limit, ...(file !== undefined ? { file } : {}) };
}
