// Each recipe answers a validate call (JSON and form), a wrong key (401) and a GET, with the five rate headers.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { newEngine, nodeHttp, expressApp, fastifyApp, honoApp } from './recipes.mjs';

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
