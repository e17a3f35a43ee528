/**
 * Dependencies are declared where they are used: every package a built file imports is a dependency or a
 * peer of its package, every declared one is imported, and test files import only what the package or
 * the workspace root declares. (Our own check rather than knip: it knows the build's excludes.)
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
type Manifest = { name: string; dependencies?: Record<string, string>; devDependencies?: Record<string, string>; peerDependencies?: Record<string, string> };
const read = (file: string) => JSON.parse(readFileSync(file, 'utf8'));
const rootManifest = read(join(root, 'package.json')) as Manifest;

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => (statSync(join(dir, n)).isDirectory() ? files(join(dir, n)) : n.endsWith('.ts') ? [join(dir, n)] : []));
}

/** The build's `exclude` globs, read as the simple forms we use: `src/**\/*.spec.ts`, `src/dir/**`, `src/file.ts`. */
function excluded(pkgDir: string): (file: string) => boolean {
  const patterns = (read(join(pkgDir, 'tsconfig.build.json')) as { exclude: string[] }).exclude;
  return (file) => {
    const rel = relative(pkgDir, file);
    return patterns.some((p) => (p.endsWith('/**/*.spec.ts') ? rel.endsWith('.spec.ts') : p.endsWith('/**') ? rel.startsWith(p.slice(0, -2)) : rel === p));
  };
}

/**
 * The packages a file imports: static imports and exports, literal dynamic imports (also `'name' as
 * string`, whose types the type-checker does not load, built as `__rewriteRelativeImportExtension('name')`),
 * `const name = '@sdp/x'` handed to import(), and files of a package found by `require.resolve('pkg/file')`
 * (a bundle served as is).
 */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8').replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:])\/\/.*$/gm, '$1');
  const specs = [...text.matchAll(/(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s+'([^']+)'|import\(\s*(?:__rewriteRelativeImportExtension\(\s*)?'([^']+)'(?:\s+as\s+string)?\s*\)|const \w+ = '(@sdp\/[a-z-]+)';|\.resolve\(\s*'([^'.][^']*)'\s*\)/g)].map((m) => (m[1] ?? m[2] ?? m[3] ?? m[4])!);
  return specs.filter((s) => !s.startsWith('.') && !s.startsWith('node:')).map((s) => (s.startsWith('@') ? s.split('/').slice(0, 2).join('/') : s.split('/')[0]!));
}

const packages = readdirSync(join(root, 'packages')).map((dir) => ({ dir: join(root, 'packages', dir), manifest: read(join(root, 'packages', dir, 'package.json')) as Manifest }));

describe('dependencies are declared where they are used', () => {
  for (const { dir, manifest } of packages) {
    const isExcluded = excluded(dir);
    const all = files(join(dir, 'src'));
    const built = all.filter((f) => !isExcluded(f));
    const tests = all.filter(isExcluded);
    const runtime = { ...manifest.dependencies, ...manifest.peerDependencies };

    it(`${manifest.name}: what its built files import is a dependency or peer`, () => {
      const missing = built.flatMap((f) => importsOf(f).filter((p) => p !== manifest.name && !(p in runtime)).map((p) => `${relative(dir, f)}: ${p}`));
      expect(missing).toEqual([]);
    });

    it(`${manifest.name}: every dependency and peer is imported by a built file`, () => {
      const used = new Set(built.flatMap(importsOf));
      // A peer of a used dependency (date-fns for date-fns-tz) is used through it.
      for (const p of [...used]) {
        try {
          for (const peer of Object.keys((read(join(root, 'node_modules', p, 'package.json')) as Manifest).peerDependencies ?? {})) used.add(peer);
        } catch {
          // a workspace package or one without a manifest of its own: no peers to add
        }
      }
      const unused = Object.keys(runtime).filter((p) => (p.startsWith('@types/') ? !used.has(p.slice('@types/'.length)) : !used.has(p)));
      expect(unused).toEqual([]);
    });

    it(`${manifest.name}: its tests import only what the package or the workspace declares`, () => {
      const declared = { ...runtime, ...manifest.devDependencies, ...rootManifest.devDependencies, ...rootManifest.dependencies };
      const missing = tests.flatMap((f) =>
        importsOf(f)
          .filter((p) => p !== manifest.name && !(p in declared))
          .map((p) => `${relative(dir, f)}: ${p}`),
      );
      expect(missing).toEqual([]);
    });
  }
});
