// The installed `sdp` bin: help texts, and `sdp serve` whose printed curl line answers 200.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import assert from 'node:assert/strict';
import { test } from 'node:test';

const sdp = join(process.cwd(), 'node_modules/.bin/sdp');

test('sdp --help and sdp --version', () => {
  const help = execFileSync(sdp, ['--help'], { encoding: 'utf8' });
  assert.match(help, /sdp serve/);
  assert.match(help, /sdp accounts/);
  assert.match(execFileSync(sdp, ['--version'], { encoding: 'utf8' }), /^\d+\.\d+\.\d+/);
});

test('sdp serve --help lists every flag with its default and variable', () => {
  const help = execFileSync(sdp, ['serve', '--help'], { encoding: 'utf8' });
  for (const flag of ['port', 'host', 'store', 'clock', 'clock-start', 'admin-token', 'product', 'accounts', 'limiting-day', 'body-limit', 'access-log']) {
    assert.match(help, new RegExp(`--${flag} `), flag);
  }
  assert.match(help, /default 8080; env SDP_PORT/);
});

test('sdp serve prints a curl line that answers 200', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'sdp-serve-'));
  const child = spawn(sdp, ['serve', '--port', '0', '--store', `sqlite:${join(dir, 'sdp.db')}`], { stdio: ['ignore', 'pipe', 'pipe'] });
  try {
    let out = '';
    await new Promise((resolve, reject) => {
      child.stdout.on('data', (d) => {
        out += d;
        if (/listening on http/.test(out)) resolve();
      });
      child.stderr.on('data', (d) => (out += d));
      child.on('exit', (code) => reject(new Error(`sdp serve exited ${code}: ${out}`)));
    });
    const curl = out.split('\n').find((l) => l.trim().startsWith('curl '));
    assert.ok(curl, out);
    const r = await runCurl(curl);
    assert.equal(r.status, 200, await r.text());
  } finally {
    child.kill('SIGTERM');
  }
});

/** Runs a printed curl line with fetch (no curl needed on the machine): -X, -H, -d and the URL, single-quoted words. */
function runCurl(line) {
  const words = [...line.trim().matchAll(/'([^']*)'|(\S+)/g)].map((m) => m[1] ?? m[2]);
  let method = 'GET';
  let body;
  let url = '';
  const headers = {};
  for (let i = 1; i < words.length; i++) {
    const w = words[i];
    if (w === '-X') method = words[++i];
    else if (w === '-H') {
      const h = words[++i];
      headers[h.slice(0, h.indexOf(':')).trim()] = h.slice(h.indexOf(':') + 1).trim();
    } else if (w === '-d') body = words[++i];
    else if (!w.startsWith('-')) url = w;
  }
  return fetch(url, { method, headers, body });
}

test('the installed server serves its tools from built code: the console, the /docs page, the OpenAPI document', async () => {
  const child = spawn(sdp, ['serve', '--port', '0', '--store', 'memory:', '--admin-token', 'consumer-token', '--access-log', 'off'], { stdio: ['ignore', 'pipe', 'pipe'] });
  try {
    let out = '';
    const url = await new Promise((resolve, reject) => {
      child.stdout.on('data', (d) => {
        out += d;
        const m = /listening on (http:\/\/\S+)/.exec(out);
        if (m) resolve(m[1]);
      });
      child.stderr.on('data', (d) => (out += d));
      child.on('exit', (code) => reject(new Error(`sdp serve exited ${code}: ${out}`)));
    });
    const page = await fetch(`${url}/_console/`);
    assert.equal(page.status, 200);
    assert.match(await page.text(), /importmap/);
    const vendor = await fetch(`${url}/_console/vendor/preact.mjs`);
    assert.equal(vendor.status, 200, 'the console vendors preact from the installed package');
    await vendor.arrayBuffer();
    const docs = await fetch(`${url}/docs`);
    assert.equal(docs.status, 200);
    await docs.arrayBuffer();
    const openapi = await fetch(`${url}/v1.5/openapi.json`);
    assert.equal(openapi.status, 200);
    assert.equal((await openapi.json()).openapi, '3.1.0');
  } finally {
    child.kill('SIGTERM');
  }
});
