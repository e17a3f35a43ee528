import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '..');
const dir = mkdtempSync(join(tmpdir(), 'sdp-bench-bundle-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// The scaling bench as a machine with nothing installed but node runs it (docs/scaling.md): built into a
// folder outside the repository, so nothing resolves from the workspace, then run there by plain node.
it('the scaling bench runs from its bundle, outside the repository, with plain node', () => {
  const out = join(dir, 'bundle');
  execFileSync(process.execPath, ['--conditions=@sdp/source', '--import', 'tsx', 'bench/device/build.ts', out], { cwd: root, stdio: 'pipe' });
  const printed = execFileSync(process.execPath, [join(out, 'scaling.mjs')], {
    cwd: dir,
    env: { PATH: process.env.PATH, SCALING_WORKERS: '1,2', SCALING_LOADERS: '1', SCALING_CONNECTIONS: '2', SCALING_SECONDS: '1', SCALING_ACCOUNTS: '2' },
    encoding: 'utf8',
    timeout: 120_000,
  });
  expect(printed).toMatch(/^SQLite, 2 accounts, --workers 1 +\d+ req\/s 1\.00x .* non-2xx 0 /m);
  expect(printed).toMatch(/^SQLite, one account, --workers 2 +\d+ req\/s .* non-2xx 0 {2}conflicts\/call 0\.000$/m);
}, 180_000);
