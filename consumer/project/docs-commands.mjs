// The command lines the docs print for a project outside the repository, run as printed in this blank
// project: every line of each ```sh block that installs packed packages (a block naming tarballs under
// `/path/to/sdp/packed/`), in README.md and docs/*.md. `SDP_REPO` names the checkout whose docs are
// read, `SDP_TARBALLS` the folder the packages were packed into (what `/path/to/sdp/packed` stands for).
// The clone's own commands are run by packages/server/src/docs-commands.spec.ts.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import assert from 'node:assert/strict';
import { test } from 'node:test';

const repo = process.env.SDP_REPO;
const tarballs = process.env.SDP_TARBALLS;
assert.ok(repo && tarballs, 'SDP_REPO and SDP_TARBALLS must be set (consumer/run.mjs sets them)');

/** Lines that do not run in a blank project, each with why. */
const EXCLUDED = [{ pattern: /^npm run pack$/, reason: 'runs in the clone (its comment says so); consumer/run.mjs packs every package the same way, into SDP_TARBALLS' }];

const pages = ['README.md', ...readdirSync(join(repo, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];
const blocks = [];
for (const page of pages) {
  const text = readFileSync(join(repo, page), 'utf8');
  for (const m of text.matchAll(/^```(?:sh|bash|shell)\n([\s\S]*?)^```/gm)) {
    if (!m[1].includes('/path/to/sdp/packed/')) continue;
    const lines = m[1]
      .replace(/\\\n\s*/g, '')
      .split('\n')
      .map((l) => l.replace(/\s+#.*$/, '').trim())
      .filter((l) => l && !l.startsWith('#'));
    blocks.push({ where: `${page}:${text.slice(0, m.index).split('\n').length}`, lines });
  }
}

// Install scripts stay off as in the suite's own install: the project's better-sqlite3 is the
// workspace's compiled copy, which a rebuild must not touch (SDP_CONSUMER_FRESH_NATIVE lets it build).
const env = { ...process.env, npm_config_loglevel: 'error', npm_config_audit: 'false', npm_config_fund: 'false', ...(process.env.SDP_CONSUMER_FRESH_NATIVE ? {} : { npm_config_ignore_scripts: 'true' }) };

test('the docs print install lines for a blank project, and every exclusion still names one', () => {
  assert.ok(blocks.length >= 2, `found ${blocks.map((b) => b.where).join(', ')}`);
  for (const e of EXCLUDED) assert.ok(blocks.some((b) => b.lines.some((l) => e.pattern.test(l))), `${e.pattern} (${e.reason}) matches no printed line`);
});

for (const block of blocks) {
  test(`${block.where}, as printed`, () => {
    for (const printed of block.lines) {
      if (EXCLUDED.some((e) => e.pattern.test(printed))) continue;
      const line = printed.replaceAll('/path/to/sdp/packed', tarballs);
      const r = spawnSync('bash', ['-c', line], { cwd: process.cwd(), env, encoding: 'utf8', timeout: 600_000 });
      assert.equal(r.status, 0, `${printed}\n${r.stdout}${r.stderr}`);
      if (/^npx sdp \S+ --help$/.test(line)) assert.match(r.stdout, /^usage: sdp /);
    }
    // What the lines name is installed: sdp-store-sqlite-0.1.0.tgz is @sdp/store-sqlite.
    const installed = JSON.parse(readFileSync(join(process.cwd(), 'package.json'), 'utf8'));
    const named = block.lines.flatMap((l) => [...l.matchAll(/\/path\/to\/sdp\/packed\/sdp-([a-z-]+)-\d+\.\d+\.\d+\.tgz/g)].map((m) => `@sdp/${m[1]}`));
    assert.ok(named.length > 0, `${block.where} names no tarball`);
    for (const name of named) assert.ok(installed.dependencies?.[name], `${name} is not a dependency after ${block.where}`);
  });
}
