/**
 * Comments and docs cite the repository's own reading of the contract (docs/contract.md, docs/clients.md),
 * never the notes it was built from, which a person who clones the repository does not have. A citation
 * of a note fails here; `node packaging/contract-citations.mjs` rewrites it into the page that restates it.
 */
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain script beside this test, without declarations.
import { PAGES, citingFiles, rewrite } from './contract-citations.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const anchorsOf = (page: string): Set<string> =>
  new Set(
    [...readFileSync(join(root, 'docs', page), 'utf8').matchAll(/^#{1,6} (.+)$/gm)].map((m) =>
      m[1]!
        .trim()
        .toLowerCase()
        .replace(/[^\p{L}\p{N} _-]/gu, '')
        .replace(/ /g, '-'),
    ),
  );

describe('citations of the contract', () => {
  it('every source file and page cites the pages of docs/, not the notes they restate', () => {
    const files = citingFiles() as string[];
    expect(files.length).toBeGreaterThan(300);
    const citing = files.filter((file) => {
      const text = readFileSync(join(root, file), 'utf8');
      return (rewrite(text, file.startsWith('docs/')) as { text: string }).text !== text;
    });
    expect(citing).toEqual([]);
  });

  it('rewrites a note into its page, and leaves the repository’s own server.md alone', () => {
    const code = (text: string) => (rewrite(text, false) as { text: string }).text;
    expect(code('judged in the order of decisions §1 (wire-facts §2.9, §2.10)')).toBe(
      'judged in the order of docs/contract.md#judgement-order (docs/clients.md#tasks, docs/clients.md#reference-data)',
    );
    expect(code('(server.md, Toolbox) and docs/server.md')).toBe('(docs/contract.md#toolbox) and docs/server.md');
    expect((rewrite('see [server.md](server.md) and seed §8.1', true) as { text: string }).text).toBe(
      'see [server.md](server.md) and [hourly allowances](contract.md#hourly-allowances)',
    );
  });

  it('every page and anchor it rewrites to exists', () => {
    const targets = new Set(Object.values(PAGES as Record<string, Record<string, string>>).flatMap((table) => Object.values(table)));
    for (const extra of ['contract.md#toolbox', 'contract.md#package-fields', 'contract.md#operator-api', 'contract.md#settings', 'contract.md#fixed-names-of-the-server']) targets.add(extra);
    const missing = [...targets].filter((target) => {
      const [page, anchor] = target.split('#') as [string, string | undefined];
      return anchor !== undefined && !anchorsOf(page).has(anchor);
    });
    expect(missing).toEqual([]);
  });
});
