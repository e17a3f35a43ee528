/**
 * Makes `bench-bundle/`: what issue 27's scaling bench needs on a machine where nothing is installed but
 * a `node` binary (a machine of 16 cores lent for a session; docs/scaling.md says how to carry it there):
 *
 * - `sdp.mjs`: the server's CLI, bundled by esbuild from the sources (one file);
 * - `scaling.mjs`: the bench (`bench/device/scaling.ts`) with autocannon bundled in;
 * - `page/`: the console's page, which the server reads beside its module;
 * - `node_modules/`: what cannot be bundled: better-sqlite3's compiled addon with the JavaScript that loads
 *   it (built here, for this machine's processor and C library: x86-64 Linux), and the two browser
 *   libraries the console resolves by path at start (preact, htm);
 * - `node.xz` with `BENCH_BUNDLE_NODE=1`: this machine's node, compressed (about a third of its size).
 *
 * `node --conditions=@sdp/source --import tsx bench/device/build.ts [DIR]` (default `bench-bundle`).
 * esbuild is the one tsx runs on (a dependency of the workspace's dev tools, not of any package).
 */
import { build } from 'esbuild';
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const out = resolve(root, process.argv[2] ?? 'bench-bundle');

// Bundled ESM still meets `require` in the CommonJS packages it holds (pg, ws, autocannon's).
const banner = { js: "import { createRequire as __sdpRequire } from 'node:module'; const require = __sdpRequire(import.meta.url);" };

rmSync(out, { recursive: true, force: true });
mkdirSync(join(out, 'node_modules'), { recursive: true });
for (const [entry, file] of [
  ['packages/server/src/cli.ts', 'sdp.mjs'],
  ['bench/device/scaling.ts', 'scaling.mjs'],
] as const) {
  await build({
    entryPoints: [join(root, entry)],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    outfile: join(out, file),
    conditions: ['@sdp/source'],
    // The native addon is loaded from node_modules; pg's optional native client is never asked for.
    external: ['better-sqlite3', 'pg-native'],
    banner,
    logLevel: 'warning',
  });
}

const copy = (from: string, to = from) => cpSync(join(root, 'node_modules', from), join(out, 'node_modules', to), { recursive: true });
copy('better-sqlite3/package.json');
copy('better-sqlite3/lib');
copy('better-sqlite3/build/Release/better_sqlite3.node');
for (const dep of ['bindings', 'file-uri-to-path', 'preact', 'htm']) copy(dep);
// The console's page, read beside the module that serves it (here, the bundle) when the operator API is on.
cpSync(join(root, 'packages/server/src/console/page'), join(out, 'page'), { recursive: true, filter: (f) => !f.endsWith('.spec.ts') });

if (process.env.BENCH_BUNDLE_NODE === '1') {
  const xz = execFileSync('xz', ['-T0', '-6', '-c', process.execPath], { maxBuffer: 1 << 30 });
  writeFileSync(join(out, 'node.xz'), xz);
}

const size = (f: string) => `${(statSync(join(out, f)).size / 1e6).toFixed(1)} MB`;
console.log(`bundle in ${out}: sdp.mjs ${size('sdp.mjs')}, scaling.mjs ${size('scaling.mjs')}${process.env.BENCH_BUNDLE_NODE === '1' ? `, node.xz ${size('node.xz')}` : ''}`);
