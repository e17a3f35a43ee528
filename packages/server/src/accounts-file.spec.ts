import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createEngine } from '@sdp/core';
import { MemoryEventStore, seededIds } from '@sdp/core/kernel';
import { ManualClock } from '@sdp/clock';
import { openAccountsFromFile } from './accounts-file.ts';

const dir = mkdtempSync(join(tmpdir(), 'sdp-accounts-file-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function fileOf(name: string, entries: unknown): string {
  const file = join(dir, name);
  writeFileSync(file, JSON.stringify(entries));
  return file;
}

describe('--accounts FILE', () => {
  it('checks every entry before it opens any: a bad one opens nothing and names itself', async () => {
    const store = new MemoryEventStore();
    const engine = createEngine({ store, clock: new ManualClock(Date.parse('2026-01-05T08:00:00Z')), ids: seededIds(1) });
    const cases: [unknown[], RegExp][] = [
      [[{ username: 'first' }, { username: 'second', api_key: 'short' }], /entry 1: api_key must be 8 to 128 printable ASCII characters/],
      [[{ username: 'first' }, { username: 'bad name' }], /entry 1: username must be/],
      [[{ username: 'first' }, { username: 'third', package: { credits_per_hour: 'many' } }], /entry 1: package\.credits_per_hour/],
      [[{ username: 'first' }, { username: 'blank', api_key: '' }], /entry 1: api_key must be 8 to 128 printable ASCII characters/],
    ];
    for (const [i, [entries, message]] of cases.entries()) {
      await expect(openAccountsFromFile(engine, fileOf(`bad-${i}.json`, entries))).rejects.toThrow(message);
      expect(await store.head()).toBe(0);
    }
    const good = await openAccountsFromFile(engine, fileOf('good.json', [{ username: 'first' }, { username: 'second', api_key: 'second-key-0001' }]));
    expect(good.opened).toEqual(['first', 'second']);
    expect(good.generated.map((g) => g.username)).toEqual(['first']);
  });
});
