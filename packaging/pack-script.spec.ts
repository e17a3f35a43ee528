/**
 * `npm run pack` in a fresh clone: `npm pack --pack-destination DIR` refuses a folder that does not
 * exist, and a clone has no `packed/` (it is ignored), so the script makes it first, with node rather than
 * a shell's `mkdir -p`, which Windows' shell lacks.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const script = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts.pack!;

describe('npm run pack', () => {
  it('makes its destination before packing into it, portably', () => {
    const steps = script.split(' && ');
    const pack = steps.findIndex((s) => s.startsWith('npm pack '));
    const destination = /--pack-destination (\S+)/.exec(steps[pack]!)![1]!;
    const make = steps.slice(0, pack).find((s) => s.startsWith('node -e '));
    expect(make, script).toBeDefined();
    const dir = mkdtempSync(join(tmpdir(), 'sdp-pack-script-'));
    try {
      // The step as npm runs it, in a folder without the destination; twice, as a second run finds it.
      for (let i = 0; i < 2; i++) expect(spawnSync(make!, { cwd: dir, shell: true, encoding: 'utf8' }).status).toBe(0);
      expect(existsSync(join(dir, destination))).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
