import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AccessEntry } from '@sdp/http';
import { BATCH_BYTES, openAccessLog, QUEUED_BYTES_MAX } from './access-log.ts';

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
    const count = Math.ceil((3 * BATCH_BYTES) / 120) + 7;
    for (let n = 0; n < count; n++) log.write(entry(n));
    await log.close();
    const written = lines(file);
    expect(written).toHaveLength(count);
    expect(Object.keys(written[0]!)).toEqual(['level', 'time', 'method', 'path', 'status', 'ms', 'username', 'cost']);
    expect(written.map((l) => l.path)).toEqual(Array.from({ length: count }, (_, n) => `/v1.5/validate?n=${n}`));
    expect(written[1]).toEqual({ level: 'info', ...entry(1) });
  });

  it('holds at most QUEUED_BYTES_MAX for a destination that falls behind: the rest is dropped, counted, and said in a warn line', async () => {
    expect(QUEUED_BYTES_MAX).toBeGreaterThanOrEqual(2 * BATCH_BYTES);
    expect(() => openAccessLog(join(dir, 'x.log'), { queuedBytesMax: BATCH_BYTES })).toThrow(/at least/);
    const file = join(dir, 'behind.log');
    const log = openAccessLog(file, { flushMs: 10, queuedBytesMax: 2 * BATCH_BYTES })!;
    // Ten batches in one turn of the loop: the file is still opening, so the destination holds all it
    // takes, and takes two.
    const count = Math.ceil((10 * BATCH_BYTES) / 120);
    for (let n = 0; n < count; n++) log.write(entry(n));
    const warned = (seen: Record<string, unknown>[]) => seen.find((l) => l.level === 'warn');
    const deadline = Date.now() + 10_000;
    let seen: Record<string, unknown>[] = [];
    while (Date.now() < deadline && !warned(seen)) {
      await new Promise((r) => setTimeout(r, 20));
      try {
        seen = lines(file);
      } catch {
        seen = [];
      }
    }
    await log.close();
    const written = lines(file);
    const warning = warned(written)!;
    expect(warning).toMatchObject({ level: 'warn', msg: 'access log lines dropped: the destination fell behind' });
    expect(Object.keys(warning).slice(0, 3)).toEqual(['level', 'time', 'dropped']);
    const kept = written.filter((l) => l.level === 'info');
    expect(kept.length).toBeLessThanOrEqual(Math.ceil((3 * BATCH_BYTES) / 100));
    expect(kept.length + (warning.dropped as number)).toBe(count);
    // What is kept comes in order, each line whole.
    const ns = kept.map((l) => Number(String(l.path).split('=')[1]));
    expect(ns).toEqual([...ns].sort((a, b) => a - b));
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

  it('writes paths and user names a client chose, quotes, control characters and any Unicode, as JSON that reads back the same, across batches', async () => {
    const file = join(dir, 'odd.log');
    const log = openAccessLog(file)!;
    const odd = ['/a"b\\c', '/new\nline\u0000', '/caf\u00e9/\u{1f600}', '/\ud83d-half', '/\u2028'];
    // Multi-byte characters in lines of every length, so batches end at every kind of boundary.
    const entries = Array.from({ length: Math.ceil((3 * BATCH_BYTES) / 100) }, (_, n) => ({ ...entry(n), path: odd[n % odd.length]! + '\u00e9'.repeat(n % 37), username: n % 3 ? odd[n % odd.length]! : null }));
    for (const e of entries) log.write(e);
    await log.close();
    expect(lines(file)).toEqual(entries.map((e) => ({ level: 'info', ...e })));
  });

  it('writes a line longer than a batch whole, in its place', async () => {
    const file = join(dir, 'long.log');
    const log = openAccessLog(file)!;
    const long = { ...entry(2), path: '/' + '\u00e9'.repeat(BATCH_BYTES / 2) };
    log.write(entry(1));
    log.write(long);
    log.write(entry(3));
    await log.close();
    expect(lines(file)).toEqual([entry(1), long, entry(3)].map((e) => ({ level: 'info', ...e })));
  });

  it("writes access lines while its logger's level allows info, and other lines through the same logger in order", async () => {
    const file = join(dir, 'levels.log');
    const log = openAccessLog(file)!;
    log.write(entry(1));
    log.logger.level = 'warn';
    log.write(entry(2));
    log.logger.warn({ note: 'disk nearly full' });
    log.logger.level = 'info';
    log.write(entry(3));
    await log.close();
    expect(lines(file)).toEqual([{ level: 'info', ...entry(1) }, { level: 'warn', note: 'disk nearly full' }, { level: 'info', ...entry(3) }]);
  });

  it('writes every line in order when the process exits without close, just after handing a full batch to the thread pool', () => {
    const file = join(dir, 'exit.log');
    // Lines of 125-130 bytes: the batch fills between `before` and `count`. The thread pool's one thread
    // is busy hashing when it fills (for about half a second, longer than any fixed pause at exit), so that
    // batch's write has not happened when the process exits.
    const before = Math.floor(BATCH_BYTES / 140);
    const count = Math.ceil(BATCH_BYTES / 120);
    const write = (from: number, to: number) =>
      `for (let n = ${from}; n < ${to}; n++) log.write({ time: '2026-03-02T08:05:37.000Z', method: 'GET', path: '/n/' + n, status: 200, ms: 0.5, username: null, cost: null });`;
    const script = [
      `import { openAccessLog } from ${JSON.stringify(new URL('./access-log.ts', import.meta.url).href)};`,
      `const log = openAccessLog(${JSON.stringify(file)});`,
      `await new Promise((r) => setTimeout(r, 50));`,
      write(0, before),
      `(await import('node:crypto')).pbkdf2('x', 'y', 400000, 32, 'sha256', () => {});`,
      write(before, count),
      `process.exit(0);`,
    ].join('\n');
    const run = spawnSync(process.execPath, ['--conditions=@sdp/source', '--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8', env: { ...process.env, UV_THREADPOOL_SIZE: '1' } });
    expect(run.stderr).toBe('');
    expect(lines(file).map((l) => l.path)).toEqual(Array.from({ length: count }, (_, n) => `/n/${n}`));
  });

  it('is nothing when off', () => {
    expect(openAccessLog('off')).toBeUndefined();
  });
});
