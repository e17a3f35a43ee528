/**
 * The packages are ES modules. A CommonJS `require()` of one either works (a Node that can require ES
 * modules, 20.19 and later, gets the module `import` gives) or fails with a message that says to use
 * import, never with the resolver's ERR_PACKAGE_PATH_NOT_EXPORTED.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
type Manifest = { name: string; files: string[]; exports: Record<string, string | Record<string, unknown>> };

/** Packages without the condition yet, each with why. */
const NOT_YET: Record<string, string> = {};

const packages = readdirSync(join(root, 'packages')).map((dir) => ({ dir: join(root, 'packages', dir), manifest: JSON.parse(readFileSync(join(root, 'packages', dir, 'package.json'), 'utf8')) as Manifest }));

/** A Node that refuses to require ES modules, as Node before 20.19 does. */
const oldNode = (process.features as { require_module?: boolean }).require_module === undefined ? [] : ['--no-experimental-require-module'];

describe('require() of an sdp package', () => {
  for (const { dir, manifest } of packages.filter((p) => !(p.manifest.name in NOT_YET))) {
    const entries = Object.entries(manifest.exports).filter(([sub]) => sub !== './package.json');

    it(`${manifest.name}: every entry has a require condition to a shipped file beside its import`, () => {
      expect(manifest.files).toContain('cjs');
      for (const [sub, conditions] of entries) {
        expect(typeof conditions, sub).toBe('object');
        // The declarations sit under `import` only: given to `require` too, they would describe an ES
        // module where TypeScript finds a CommonJS file (arethetypeswrong's FalseESM).
        const c = conditions as { import: { types: string; default: string }; require: string };
        expect(Object.keys(c).indexOf('require'), sub).toBe(Object.keys(c).indexOf('import') + 1);
        expect(Object.keys(c.import), sub).toEqual(['types', 'default']);
        expect(c.require, sub).toMatch(/^\.\/cjs\/[\w-]+\.cjs$/);
        const shim = readFileSync(join(dir, c.require), 'utf8');
        expect(shim, sub).toContain(`require('.${c.import.default}')`);
      }
    });

    it(`${manifest.name}: where Node cannot require ES modules, says to use import`, () => {
      for (const [sub] of entries) {
        const specifier = sub === '.' ? manifest.name : `${manifest.name}/${sub.slice(2)}`;
        // Without the workspace's source condition, as a user's process resolves the package.
        const env = { ...process.env, NODE_OPTIONS: '' };
        const r = spawnSync(process.execPath, [...oldNode, '-e', `require(${JSON.stringify(specifier)})`], { cwd: root, env, encoding: 'utf8' });
        expect(r.status, specifier).not.toBe(0);
        expect(r.stderr, specifier).toContain(`${specifier} is an ES module: load it with import`);
        expect(r.stderr, specifier).not.toContain('ERR_PACKAGE_PATH_NOT_EXPORTED');
      }
    });
  }

  it('lists only packages that still lack the condition', () => {
    for (const name of Object.keys(NOT_YET)) {
      const p = packages.find((x) => x.manifest.name === name);
      expect(p && existsSync(join(p.dir, 'cjs')), `${name} has cjs/ now: remove it from NOT_YET`).toBeFalsy();
    }
  });
});
