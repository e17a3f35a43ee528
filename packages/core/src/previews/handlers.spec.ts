import type { EndpointId } from '../catalogue/endpoints.ts';
import { describe, expect, it } from 'vitest';
import { accountDecider, accountStream } from '../accounting/account.ts';
import { MemoryEventStore } from '../kernel/memory-store.ts';
import { seededIds, type Clock } from '../kernel/ports.ts';
import { compileAndRegister } from '../filters/index.ts';
import { createEngine } from '../platform.ts';
import { recordInteractions } from '../recordings/record-interactions.ts';
import { recordingsDecider, recordingsStream } from '../recordings/recording.ts';
import { PREVIEW_QUEUE_MS, previewRunMs } from './preview.ts';

const T0 = Date.parse('2026-05-01T12:00:00Z');
const creds = { username: 'alice', apiKey: 'alice-key-0001' };
const HOUR = 3_600_000;

/** Two recordings keep posts of the last hours; one post is kept by both and must count once. */
async function setup() {
  const time = { now: T0 - 6 * HOUR };
  const clock: Clock = { now: () => time.now };
  const engine = createEngine({ store: new MemoryEventStore(), clock, ids: seededIds(21) });
  await engine.openAccount({ username: 'alice', api_key: creds.apiKey });
  const { all, coffee } = await engine.command(async (uow) => {
    const all = await compileAndRegister(uow, 'fb.content exists', { register: true });
    const coffee = await compileAndRegister(uow, 'fb.content contains "coffee"', { register: true });
    for (const [id, hash] of [['1'.repeat(40), all.hash], ['2'.repeat(40), coffee.hash]] as const) {
      await uow.execute(recordingsDecider, recordingsStream('alice'), { type: 'StartRecording', id, hash, name: id, service: 'facebook', at: uow.now, identityId: null, concurrentLimit: 10, holdLimit: 1000 });
    }
    return { all: all.hash, coffee: coffee.hash };
  });
  const posts = [
    { n: 1, content: 'coffee at dawn', gender: 'female', ago: 5 * HOUR },
    { n: 2, content: 'more coffee', gender: 'male', ago: 4.5 * HOUR },
    { n: 3, content: 'tea time', gender: 'male', ago: 4 * HOUR },
  ];
  time.now = T0;
  await engine.command(async (uow) => {
    const account = await uow.load(accountDecider, accountStream('alice'));
    const interactions = posts.map((p) => ({
      interaction: { id: `i${p.n}`, created_at: (T0 - p.ago) / 1000 },
      fb: { content: p.content, author: { id: `a${p.n}`, gender: p.gender } },
    }));
    return recordInteractions({ uow, account, settings: engine.settings, now: uow.now }, interactions);
  });
  const call = (endpoint: EndpointId, params: Record<string, unknown> = {}) => engine.call({ version: '1.5', endpoint, credentials: creds, params });
  return { engine, time, call, all, coffee };
}

describe('previews through engine.call', () => {
  it('create answers 202 {id (40 hex), created_at}; get answers 202 until it succeeds, then 200 with data', async () => {
    const { call, time, coffee } = await setup();
    const start = (T0 - 6 * HOUR) / 1000;
    const end = (T0 - 2 * HOUR) / 1000;
    const c = await call('preview.create', { hash: coffee, start, end, parameters: 'fb.author.gender,freqDist,5;interaction.id,targetVol,hour' });
    expect(c.status).toBe(202);
    expect(c.rate).toMatchObject({ cost: 25 });
    expect(c.body).toEqual({ id: expect.stringMatching(/^[0-9a-f]{40}$/), created_at: T0 / 1000 });
    const id = (c.body as { id: string }).id;
    const queued = await call('preview.get', { id });
    expect(queued).toMatchObject({ status: 202, body: { id, name: 'preview', status: 'queued', progress: 0, feeds: 'facebook,linkedin', sample: 1, start, end, user: 'alice', hash: coffee } });
    expect(queued.body).not.toHaveProperty('data');
    time.now += PREVIEW_QUEUE_MS + 1;
    expect((await call('preview.get', { id })).body).toMatchObject({ status: 'running' });
    time.now += previewRunMs(start, end);
    const done = await call('preview.get', { id });
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({
      status: 'succeeded',
      progress: 100,
      data: [
        { target: 'fb.author.gender', analysis: 'freqDist', threshold: 5, output: { female: 1, male: 1 } },
        { target: 'interaction.id', analysis: 'targetVol', interval: 'hour', output: { '2026/05/01 07:00:00': 2 } },
      ],
    });
    // A later get shows the same recorded data.
    time.now += 10 * HOUR;
    expect((await call('preview.get', { id })).body).toEqual(done.body);
  });

  it('counts an interaction kept by two recordings once', async () => {
    const { call, time, all } = await setup();
    const c = await call('preview.create', { hash: all, start: (T0 - 6 * HOUR) / 1000, end: T0 / 1000 - 1, parameters: 'fb.author.gender,freqDist,5', sources: 'facebook' });
    time.now += 60_000 + PREVIEW_QUEUE_MS;
    const done = await call('preview.get', { id: (c.body as { id: string }).id });
    expect(done.body).toMatchObject({ status: 'succeeded', feeds: 'facebook', data: [{ output: { male: 2, female: 1 } }] });
  });

  it('refuses bad input with clear 400s and an unknown id with 404', async () => {
    const { call, coffee } = await setup();
    const start = (T0 - 6 * HOUR) / 1000;
    expect((await call('preview.create', { hash: 'a'.repeat(32), start, parameters: 'fb.type,freqDist,5' })).body).toEqual({ error: 'hash must be a valid hash' });
    expect((await call('preview.create', { hash: coffee, start })).body).toEqual({ error: "Missing param 'parameters'" });
    expect((await call('preview.create', { hash: coffee, start, parameters: 'fb.type,pie,5' })).status).toBe(400);
    expect((await call('preview.create', { hash: coffee, start, parameters: 'fb.type,freqDist,5', sources: 'myspace' })).status).toBe(400);
    expect(await call('preview.get', { id: 'b'.repeat(40) })).toMatchObject({ status: 404 });
  });
});
