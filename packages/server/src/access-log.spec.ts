import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AccessEntry } from '@sdp/http';
import { BATCH_CHARS, openAccessLog } from './access-log.ts';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'sdp-access-log-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const entry = (n: number): AccessEntry => ({ time: new Date(Date.UTC(2026, 2, 2, 8, 5, 37, n % 1000)).toISOString(), method: 'POST', path: `/v1.5/validate?n=${n}`, status: 200, ms: 0.25, username: n % 2 ? 'ann' : null, cost: n % 2 ? 1 : null });
const lines = (file: string) => readFileSync(file, 'utf8').split('\n').filter((l) => l.length > 0).map((l) => JSON.parse(l) as Record<string, unknown>);

describe('the access log', () => {
  it('writes every entry as one JSON line, level and time first, in the order of the requests, all of them by close', async () => {
    const file = join(dir, 'access.log');
    const log = openAccessLog(file)!;
    // Several batches' worth, and a partial batch at the end that only close writes.
    const count = Math.ceil((3 * BATCH_CHARS) / 120) + 7;
    for (let n = 0; n < count; n++) log.write(entry(n));
    await log.close();
    const written = lines(file);
    expect(written).toHaveLength(count);
    expect(Object.keys(written[0]!)).toEqual(['level', 'time', 'method', 'path', 'status', 'ms', 'username', 'cost']);
    expect(written.map((l) => l.path)).toEqual(Array.from({ length: count }, (_, n) => `/v1.5/validate?n=${n}`));
    expect(written[1]).toEqual({ level: 'info', ...entry(1) });
  });

  it('gets the lines of a quiet server to the file without waiting for a full batch or for close', async () => {
    const file = join(dir, 'quiet.log');
    const log = openAccessLog(file, { flushMs: 20 })!;
    try {
      log.write(entry(1));
      const deadline = Date.now() + 5000;
      let seen: Record<string, unknown>[] = [];
      while (Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 20));
        seen = (() => {
          try {
            return lines(file);
          } catch {
            return [];
          }
        })();
        if (seen.length > 0) break;
      }
      expect(seen).toEqual([{ level: 'info', ...entry(1) }]);
    } finally {
      await log.close();
    }
  });

  it('appends to a file that already has lines', async () => {
    const file = join(dir, 'again.log');
    for (const n of [1, 2]) {
      const log = openAccessLog(file)!;
      log.write(entry(n));
      await log.close();
    }
    expect(lines(file).map((l) => l.path)).toEqual(['/v1.5/validate?n=1', '/v1.5/validate?n=2']);
  });

  it('is nothing when off', () => {
    expect(openAccessLog('off')).toBeUndefined();
  });
});
