#!/usr/bin/env node
/**
 * The consumer suite: what a user outside this repository gets. Packs every package with `npm pack`,
 * installs the tarballs into a temporary project outside the repository, and there, with plain Node (no
 * tsx, no bundler): the embedding recipes (node:http on SQLite, Express, Fastify, Hono), the installed
 * `sdp` bin, a strict TypeScript consumer, a misspelt endpoint id that must not compile, and the testing
 * kit's README property under vitest. The embedder's minimal set (core, clock, the SQLite store) goes into
 * a blank project of its own, is measured (packages, MB, seconds), and runs docs/embedding.md's first
 * recipe and a require() of @sdp/core there. Then publint and arethetypeswrong on every package.
 *
 * `node consumer/run.mjs [--json FILE]` after `npm run build` (`npm run test:consumer` does both).
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '..');
const args = process.argv.slice(2);
const jsonAt = args.indexOf('--json');
const keep = args.includes('--keep');
const work = mkdtempSync(join(tmpdir(), 'sdp-consumer-'));
const tarballs = join(work, 'tarballs');
const project = join(work, 'project');
mkdirSync(tarballs);

const results = [];
const figures = { packed: {}, installSeconds: 0, installToFirstAnswerSeconds: 0, minimal: undefined };
const say = (line) => process.stdout.write(line + '\n');

/** One check: runs, and is recorded as passed or failed with what it printed. */
async function check(name, fn) {
  const started = Date.now();
  try {
    await fn();
    results.push({ name, ok: true });
    say(`ok   ${name} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
  } catch (error) {
    results.push({ name, ok: false });
    say(`FAIL ${name}\n${String(error?.stdout ?? '')}${String(error?.stderr ?? '')}${error?.message ?? error}`.trimEnd());
  }
}

const run = (cmd, argv, cwd, extra = {}) => execFileSync(cmd, argv, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], ...extra });

// 1. Pack every workspace package, as `npm publish` would.
const packages = readdirSync(join(root, 'packages')).filter((p) => !p.startsWith('.')).sort();
const tgz = {};
for (const p of packages) {
  const dir = join(root, 'packages', p);
  const [info] = JSON.parse(run('npm', ['pack', '--json', '--pack-destination', tarballs], dir));
  tgz[info.name] = join(tarballs, info.filename);
  figures.packed[info.name] = { packedBytes: info.size, unpackedBytes: info.unpackedSize, files: info.entryCount };
  say(`packed ${info.name}: ${(info.size / 1024).toFixed(1)} kB packed, ${(info.unpackedSize / 1024).toFixed(1)} kB unpacked, ${info.entryCount} files`);
  await check(`${info.name}: the tarball holds built JS, declarations and no tests`, () => {
    const files = info.files.map((f) => f.path);
    const bad = files.filter((f) => /\.spec\.ts$|tsbuildinfo$/.test(f));
    if (bad.length) throw new Error(`test or build files packed: ${bad.join(', ')}`);
    for (const need of ['dist/index.js', 'dist/index.d.ts', 'dist/index.d.ts.map', 'package.json']) {
      if (!files.includes(need)) throw new Error(`${need} missing from the tarball`);
    }
  });
}

// 2. A blank project outside the repository that depends on the tarballs.
cpSync(join(here, 'project'), project, { recursive: true });
const devVersions = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).devDependencies;
writeFileSync(
  join(project, 'package.json'),
  JSON.stringify(
    {
      name: 'sdp-consumer',
      private: true,
      type: 'module',
      dependencies: {
        ...Object.fromEntries(Object.entries(tgz).map(([name, file]) => [name, `file:${file}`])),
        express: '^5.1.0',
        fastify: '^5.6.0',
        hono: '^4.9.0',
        '@hono/node-server': '^1.19.0',
        // better-sqlite3 compiles its native addon on install (minutes on a busy machine): the workspace's
        // copy, already compiled, stands in unless SDP_CONSUMER_FRESH_NATIVE is set. It is a third-party
        // package; every @sdp package still comes from its tarball.
        ...(process.env.SDP_CONSUMER_FRESH_NATIVE ? {} : { 'better-sqlite3': `file:${join(root, 'node_modules/better-sqlite3')}` }),
      },
      devDependencies: {
        typescript: devVersions.typescript,
        vitest: devVersions.vitest,
        'fast-check': devVersions['fast-check'],
        '@fast-check/vitest': devVersions['@fast-check/vitest'],
        '@types/node': devVersions['@types/node'],
        'openapi-typescript': devVersions['openapi-typescript'],
        'openapi-fetch': devVersions['openapi-fetch'],
      },
    },
    null,
    2,
  ),
);

const t0 = Date.now();
await check('npm install of the tarballs', () => {
  // With the workspace's better-sqlite3 no install script is needed (and its rebuild must not run there).
  const scripts = process.env.SDP_CONSUMER_FRESH_NATIVE ? [] : ['--ignore-scripts'];
  run('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error', ...scripts], project);
  figures.installSeconds = (Date.now() - t0) / 1000;
});
await check('the installed sdp serve answers its first call', async () => {
  const child = spawn(join(project, 'node_modules/.bin/sdp'), ['serve', '--port', '0', '--store', 'memory:', '--access-log', 'off'], { cwd: project, stdio: ['ignore', 'pipe', 'pipe'] });
  try {
    let out = '';
    const url = await new Promise((ok, fail) => {
      child.stdout.on('data', (d) => {
        out += d;
        const m = /listening on (http:\/\/\S+)/.exec(out);
        if (m) ok(m[1]);
      });
      child.stderr.on('data', (d) => (out += d));
      child.on('exit', (code) => fail(new Error(`exited ${code}: ${out}`)));
    });
    const key = /username (\S+), API key (\S+)/.exec(out);
    const r = await fetch(`${url}/v1.5/balance`, { headers: { authorization: `${key[1]}:${key[2]}` } });
    if (r.status !== 200) throw new Error(`answered ${r.status}`);
    figures.installToFirstAnswerSeconds = (Date.now() - t0) / 1000;
  } finally {
    child.kill('SIGTERM');
  }
});

// 3. The checks, each as a user runs it.
const nodeTest = (file) => () => run(process.execPath, ['--test', '--test-reporter=dot', file], project);
await check('recipes: node:http on SQLite, node:http with the stream, Express (express.json() at /api), Fastify, Hono', nodeTest('check-recipes.mjs'));
await check('installed sdp: --help, --version, serve --help, serve and its curl line', nodeTest('cli.mjs'));

// The embedder's minimal set (docs/embedding.md#installing): a project `npm init -y` made, with only the
// three tarballs the first recipe imports. Its size is measured here; a dependency another package
// needs shows as a failure to run the recipe.
const minimal = join(work, 'minimal');
await check('the minimal set alone (@sdp/core, @sdp/clock, @sdp/store-sqlite) in a blank project: installed and measured', () => {
  mkdirSync(minimal);
  run('npm', ['init', '-y'], minimal);
  const fresh = Boolean(process.env.SDP_CONSUMER_FRESH_NATIVE);
  if (!fresh) {
    // better-sqlite3 at the workspace's version, installed without its build script; the workspace's
    // compiled addon is copied in after (a compile takes minutes and says nothing about our packages).
    const manifest = JSON.parse(readFileSync(join(minimal, 'package.json'), 'utf8'));
    manifest.overrides = { 'better-sqlite3': JSON.parse(readFileSync(join(root, 'node_modules/better-sqlite3/package.json'), 'utf8')).version };
    writeFileSync(join(minimal, 'package.json'), JSON.stringify(manifest, null, 2));
  }
  const started = Date.now();
  run('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error', ...(fresh ? [] : ['--ignore-scripts']), tgz['@sdp/core'], tgz['@sdp/clock'], tgz['@sdp/store-sqlite']], minimal);
  const seconds = (Date.now() - started) / 1000;
  if (!fresh) cpSync(join(root, 'node_modules/better-sqlite3/build'), join(minimal, 'node_modules/better-sqlite3/build'), { recursive: true });
  const installed = Object.keys(JSON.parse(readFileSync(join(minimal, 'package-lock.json'), 'utf8')).packages).filter((k) => k !== '');
  const ours = installed.filter((k) => /(^|\/)node_modules\/@sdp\//.test(k));
  if (ours.length !== 3) throw new Error(`@sdp packages installed: ${ours.join(', ')}`);
  figures.minimal = { packages: installed.length, thirdParty: installed.length - ours.length, megabytes: Math.round(bytesUnder(join(minimal, 'node_modules')) / 1e5) / 10, installSeconds: seconds, compiledNative: fresh };
  say(`minimal set: ${figures.minimal.packages} packages (${figures.minimal.thirdParty} third-party), ${figures.minimal.megabytes} MB in node_modules, installed in ${seconds.toFixed(1)} s${fresh ? ' (better-sqlite3 built)' : ' (better-sqlite3 not compiled: the workspace build copied in)'}`);
});
await check("docs/embedding.md's first recipe, as printed, runs twice with plain node on the minimal set", () => {
  // The page's "An engine in a few lines" block, written where the page says to put it.
  const page = readFileSync(join(root, 'docs/embedding.md'), 'utf8');
  const section = page.slice(page.indexOf('## An engine in a few lines'));
  const code = /```ts\n([\s\S]*?)```/.exec(section)?.[1];
  if (!code) throw new Error('no ts block under "An engine in a few lines"');
  writeFileSync(join(minimal, 'index.mjs'), code);
  for (const round of [1, 2]) {
    const out = run(process.execPath, ['index.mjs'], minimal);
    if (!/^200 /.test(out)) throw new Error(`run ${round} printed: ${out}`);
  }
});
await check("CommonJS: require('@sdp/core') in the minimal set gives the module, or on an older Node says to use import", () => {
  const r = spawnSync(process.execPath, ['-e', "console.log(typeof require('@sdp/core').createEngine)"], { cwd: minimal, encoding: 'utf8' });
  if (process.features.require_module) {
    if (r.status !== 0 || r.stdout.trim() !== 'function') throw new Error(`${r.stdout}${r.stderr}`);
  } else if (r.status === 0 || !/is an ES module: load it with import/.test(r.stderr)) throw new Error(`${r.stdout}${r.stderr}`);
});
const tsc = join(project, 'node_modules/typescript/bin/tsc');
await check('a strict nodenext TypeScript consumer compiles against the declarations', () => run(process.execPath, [tsc, '-p', 'tsconfig.json'], project));
await check('a misspelt endpoint id does not compile', () => {
  const r = spawnSync(process.execPath, [tsc, '--noEmit', '--strict', '--skipLibCheck', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--types', 'node', 'misspelt.ts'], { cwd: project, encoding: 'utf8' });
  if (r.status === 0) throw new Error('misspelt.ts compiled');
    // TS2322 (not assignable), or TS2820 when the compiler also suggests the right id.
  if (!/core\.valdate/.test(r.stdout) || !/TS2322|TS2820/.test(r.stdout)) throw new Error(`failed for another reason:\n${r.stdout}`);
  const others = r.stdout.split('\n').filter((l) => /error TS/.test(l) && !/TS2322|TS2820/.test(l));
  if (others.length) throw new Error(`other errors too:\n${others.join('\n')}`);
});
await check('openapi-typescript types from the served document; an openapi-fetch client compiles and calls the server', openApiClient);
await check("the testing kit's README property under vitest", () => run(process.execPath, [join(project, 'node_modules/vitest/vitest.mjs'), 'run', 'kit.spec.ts'], project));
// Last: the docs' install lines re-resolve what the project depends on.
await check('the install lines the docs print, run as printed in the project', () =>
  run(process.execPath, ['--test', '--test-reporter=dot', 'docs-commands.mjs'], project, { env: { ...process.env, SDP_REPO: root, SDP_TARBALLS: tarballs } }),
);

/** The bytes of the files under a folder, links not followed. */
function bytesUnder(dir) {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) total += bytesUnder(path);
    else if (entry.isFile()) total += statSync(path).size;
  }
  return total;
}

/** issue 28: the served document, as a user generates a client from it (openapi-client.ts says what it calls). */
async function openApiClient() {
  const child = spawn(join(project, 'node_modules/.bin/sdp'), ['serve', '--port', '0', '--store', 'memory:', '--access-log', 'off'], { cwd: project, stdio: ['ignore', 'pipe', 'pipe'] });
  try {
    let out = '';
    const url = await new Promise((ok, fail) => {
      child.stdout.on('data', (d) => {
        out += d;
        const m = /listening on (http:\/\/\S+)/.exec(out);
        if (m && /API key/.test(out)) ok(m[1]);
      });
      child.stderr.on('data', (d) => (out += d));
      child.on('exit', (code) => fail(new Error(`exited ${code}: ${out}`)));
    });
    const [, username, apiKey] = /username (\S+), API key (\S+)/.exec(out);
    writeFileSync(join(project, 'openapi.json'), await (await fetch(`${url}/v1.5/openapi.json`)).text());
    run(process.execPath, [join(project, 'node_modules/openapi-typescript/bin/cli.js'), 'openapi.json', '-o', 'api.d.ts'], project);
    run(process.execPath, [tsc, '-p', 'tsconfig.openapi.json'], project);
    const said = run(process.execPath, ['openapi-client.js', url, username, apiKey], project);
    if (!/^ok /.test(said)) throw new Error(said);
  } finally {
    child.kill('SIGTERM');
  }
}

// 4. Package metadata, as publishers check it.
const bin = (name) => join(root, 'node_modules/.bin', name);
for (const p of packages) {
  const dir = join(root, 'packages', p);
  const name = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).name;
  await check(`${name}: publint --strict`, () => {
    const out = run(bin('publint'), ['--strict', '--pack', 'npm'], dir);
    if (!/All good/.test(out)) throw new Error(out);
  });
  await check(`${name}: arethetypeswrong (ESM only)`, () => run(bin('attw'), [tgz[name], '--profile', 'esm-only', '--format', 'table-flipped'], root));
}

say(`\nfigures: ${JSON.stringify(figures)}`);
if (jsonAt >= 0) writeFileSync(args[jsonAt + 1], JSON.stringify(figures, null, 2));
if (!keep) rmSync(work, { recursive: true, force: true });
else say(`kept ${work}`);
const failed = results.filter((r) => !r.ok).length;
say(`consumer: ${results.length - failed} passed, ${failed} failed`);
process.exitCode = failed ? 1 : 0;
