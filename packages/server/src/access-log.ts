import { createWriteStream } from 'node:fs';
import type { AccessEntry } from '@sdp/http';

export interface AccessLog {
  write(entry: AccessEntry): void;
  close(): Promise<void>;
}

/** One JSON line per request (method, path, status, ms, username, cost): to stdout, a file, or nowhere. */
export function openAccessLog(setting: string): AccessLog | undefined {
  if (setting === 'off') return undefined;
  if (setting === 'stdout') return { write: (e) => void process.stdout.write(JSON.stringify(e) + '\n'), close: async () => {} };
  const file = createWriteStream(setting, { flags: 'a' });
  return {
    write: (e) => void file.write(JSON.stringify(e) + '\n'),
    close: () => new Promise<void>((resolve) => file.end(() => resolve())),
  };
}
