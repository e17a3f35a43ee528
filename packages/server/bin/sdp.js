#!/usr/bin/env node
// The `sdp` command runs the built JavaScript (`dist/cli.js`) wherever it is: tsx on the sources starts in
// about a second and serves slower, so `npx sdp` in a clone would not be what `npm start` runs. Installed
// from a registry or a tarball, the package has dist and no TypeScript, and nothing below applies. Inside
// the sdp repository the build is brought up to date first, so a clone never runs a stale build: a few
// hundred stats decide, and `npm run build` (incremental) runs only when a source is newer than the last
// build's stamp.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';

const root = fileURLToPath(new URL('../../../', import.meta.url));

function inRepository() {
  try {
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
    return pkg.name === 'sdp' && Array.isArray(pkg.workspaces);
  } catch {
    return false;
  }
}

/** The newest change to anything the build reads: sources (specs are not built), package and build settings. */
function newestInput() {
  let newest = statSync(join(root, 'tsconfig.build-base.json'), { throwIfNoEntry: false })?.mtimeMs ?? 0;
  const packages = join(root, 'packages');
  for (const name of readdirSync(packages)) {
    for (const f of ['package.json', 'tsconfig.build.json']) newest = Math.max(newest, statSync(join(packages, name, f), { throwIfNoEntry: false })?.mtimeMs ?? 0);
    const src = join(packages, name, 'src');
    if (existsSync(src)) newest = Math.max(newest, newestUnder(src));
  }
  return newest;
}

// A walk of its own: readdir's `recursive` names entries' folders differently across Node 20's releases.
function newestUnder(dir) {
  let newest = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const at = join(dir, e.name);
    if (e.isDirectory()) newest = Math.max(newest, newestUnder(at));
    else if (e.isFile() && !e.name.endsWith('.spec.ts')) newest = Math.max(newest, statSync(at).mtimeMs);
  }
  return newest;
}

/**
 * Whether this process resolves the workspace packages to their TypeScript (`--conditions=@sdp/source`,
 * as the tests' child processes do): then a build would not be what runs, and the sources go through tsx.
 */
function onSources() {
  const options = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)];
  return options.some((o) => /^(--conditions|-C)=@sdp\/source$/.test(o)) || options.some((o, i) => (o === '--conditions' || o === '-C') && options[i + 1] === '@sdp/source');
}

if (inRepository() && onSources()) {
  const { spawn } = await import('node:child_process');
  const sources = fileURLToPath(new URL('../src/cli.ts', import.meta.url));
  const child = spawn(process.execPath, ['--conditions=@sdp/source', '--import', 'tsx', sources, ...process.argv.slice(2)], { stdio: 'inherit' });
  for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
  await new Promise(() => {
    child.on('exit', (code, signal) => {
      // Ends the way the child ended; without the forwarding listeners, or the signal would only reach them.
      if (signal) {
        process.removeAllListeners(signal);
        process.kill(process.pid, signal);
      } else process.exit(code ?? 1);
    });
  });
}

if (inRepository()) {
  // Written by `npm run build` as it ends; its time is when that build's tsc began.
  const stamp = statSync(join(root, 'node_modules', '.cache', 'sdp', 'build-stamp'), { throwIfNoEntry: false });
  const built = existsSync(fileURLToPath(new URL('../dist/cli.js', import.meta.url)));
  if (!built || !stamp || stamp.mtimeMs < newestInput()) {
    // The first build's line is npm start's own, which a newcomer already knows; a rebuild after an edit
    // takes seconds, so it is named only to a person at a terminal and never to a reader of the output.
    if (!built) process.stderr.write('first start: building the packages (tsc -b; about a minute here, later starts rebuild only what changed)\n');
    else if (process.stderr.isTTY) process.stderr.write('sdp: sources changed since the last build: npm run build (incremental)\n');
    // Its output goes to stderr: `sdp openapi > file` and the like must get only the command's own.
    const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
    const r = spawnSync(npm, ['run', 'build', '--silent'], { cwd: root, stdio: ['ignore', 2, 2], shell: process.platform === 'win32' });
    // Ctrl-C during the build ends this process the same way, with no word of a failure.
    if (r.signal) process.kill(process.pid, r.signal);
    if (r.status !== 0) {
      process.stderr.write('sdp: the build failed (above); fix it, or run the sources with: node --conditions=@sdp/source --import tsx packages/server/src/cli.ts\n');
      process.exit(r.status ?? 1);
    }
  }
}
await import(new URL('../dist/cli.js', import.meta.url).href);
