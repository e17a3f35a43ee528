// Each recipe answers a validate call (JSON and form), a wrong key (401) and a GET, with the five rate headers.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { newEngine, nodeHttp, nodeHttpWithStream, expressApp, fastifyApp, honoApp } from './recipes.mjs';

const KEY = 'consumer-key-0001';
const RATE = ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-cost', 'x-ratelimit-reset', 'x-ratelimit-reset-ttl'];
const CSDL = 'interaction.content contains "coffee"';

async function engineWithAccount(store) {
  const engine = newEngine(store);
  await engine.openAccount({ username: 'acme', api_key: KEY });
  return engine;
}

async function answers(base) {
  const auth = { authorization: `acme:${KEY}` };
  const json = await fetch(`${base}/v1.5/validate`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ csdl: CSDL }) });
  assert.equal(json.status, 200, await json.clone().text());
  for (const h of RATE) assert.match(json.headers.get(h) ?? '', /^\d+$/, h);
  assert.equal(json.headers.get('x-ratelimit-cost'), '5');
  const form = await fetch(`${base}/v1.5/validate`, { method: 'POST', headers: { ...auth, 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ csdl: CSDL }) });
  assert.equal(form.status, 200, await form.clone().text());
  assert.equal(Number(form.headers.get('x-ratelimit-remaining')), Number(json.headers.get('x-ratelimit-remaining')) - 5);
  const wrong = await fetch(`${base}/v1.5/validate`, { method: 'POST', headers: { authorization: 'acme:wrong-key-0001', 'content-type': 'application/json' }, body: '{}' });
  assert.equal(wrong.status, 401);
  const get = await fetch(`${base}/v1.5/balance`, { headers: auth });
  assert.equal(get.status, 200, await get.clone().text());
  for (const h of RATE) assert.match(get.headers.get(h) ?? '', /^\d+$/, h);
}

const dir = mkdtempSync(join(tmpdir(), 'sdp-recipe-'));
for (const [name, recipe] of [['node:http on SQLite', nodeHttp], ['Express behind express.json() at /api', expressApp], ['Fastify at /api', fastifyApp], ['Hono at /api', honoApp]]) {
  test(name, async () => {
    const running = await recipe(engineWithAccount, dir);
    try {
      await answers(running.base);
    } finally {
      await running.close();
    }
  });
}

test('node:http with the stream product: an HTTP stream of a compiled hash answers 200 and its first line acknowledges the subscription', async () => {
  const running = await nodeHttpWithStream(engineWithAccount);
  try {
    const auth = { authorization: `acme:${KEY}` };
    const compiled = await fetch(`${running.base}/v1.5/compile`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ csdl: CSDL }) });
    const { hash } = await compiled.json();
    const stream = await fetch(`${running.base}/${hash}`, { headers: auth });
    assert.equal(stream.status, 200);
    assert.equal(stream.headers.get('x-ratelimit-cost'), '5');
    const reader = stream.body.pipeThrough(new TextDecoderStream()).getReader();
    let text = '';
    while (!text.includes('\n')) text += (await reader.read()).value ?? '';
    assert.deepEqual(JSON.parse(text.slice(0, text.indexOf('\n'))), { status: 'success', message: `Successfully subscribed to hash ${hash}`, hash });
    await reader.cancel();
  } finally {
    await running.close();
  }
});
