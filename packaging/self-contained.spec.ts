/**
 * The tests, benches and build read nothing beside the clone: a path written relative to a file (`new
 * URL('../x', import.meta.url)`, `join(here, '..', '..')`) must land inside the repository, since a
 * user's clone has nothing next to it. A test once read a notes folder beside the repository and failed
 * in every clone but ours.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
/** Folders that hold no sources of ours: installs, builds, and what commands write. */
const SKIP = new Set(['node_modules', 'dist', '.git', 'data', 'packed', 'fixtures', 'reports']);

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    if (SKIP.has(name)) return [];
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return /\.(ts|tsx|mjs|cjs|js|json)$/.test(name) ? [path] : [];
  });
}

/** The upward paths a text writes: literals of `../` steps, and runs of `'..'` arguments (`join(here, '..', '..')`). */
function upwardPaths(text: string): string[] {
  const literals = [...text.matchAll(/['"`]((?:\.\.\/)+(?:\.\.)?[^'"`$\n]*|\.\.)['"`]/g)].map((m) => m[1]!);
  const runs = [...text.matchAll(/(?:['"]\.\.['"]\s*,\s*)+/g)].map((m) => (m[0].match(/\.\./g) ?? []).map(() => '..').join('/'));
  return [...literals, ...runs];
}

/** The paths of a file that, taken from its own folder, leave the repository. */
function leaving(file: string, text: string): string[] {
  return upwardPaths(text).filter((p) => {
    const to = resolve(dirname(file), p);
    return to !== root && !to.startsWith(root + sep);
  });
}

describe('the repository needs nothing beside it', () => {
  const files = [
    ...['packages', 'bench', 'consumer', 'packaging'].flatMap((d) => sources(join(root, d))),
    ...readdirSync(root).filter((n) => /\.(ts|mjs|json)$/.test(n)).map((n) => join(root, n)),
  ];

  it('no path a source writes relative to itself leaves the repository', () => {
    expect(files.length).toBeGreaterThan(300);
    // This file's own samples climb out on purpose.
    const self = fileURLToPath(import.meta.url);
    const out = files.filter((f) => f !== self).flatMap((f) => leaving(f, readFileSync(f, 'utf8')).map((p) => `${relative(root, f)}: ${p}`));
    expect(out).toEqual([]);
  });

  it('finds the climbs it looks for, and lets the ones that stay in pass', () => {
    const spec = join(root, 'packages/core/src/catalogue/catalogue.spec.ts');
    expect(leaving(spec, "readFileSync(new URL('../../../../../notes/seed.md', import.meta.url))")).toEqual(['../../../../../notes/seed.md']);
    expect(leaving(spec, "join(here, '..', '..', '..', '..', '..', 'notes')")).toEqual(['../../../../..']);
    expect(leaving(spec, "resolve(here, '../../../..')")).toEqual([]);
  });
});
