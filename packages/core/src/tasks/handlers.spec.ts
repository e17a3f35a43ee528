import type { EndpointId } from '../catalogue/endpoints.ts';
import { describe, expect, it } from 'vitest';
import { accountDecider, accountStream } from '../accounting/account.ts';
import type { VersionId } from '../catalogue/versions.ts';
import { MemoryEventStore } from '../kernel/memory-store.ts';
import { seededIds, type Clock } from '../kernel/ports.ts';
import { compileAndRegister } from '../filters/index.ts';
import { createEngine } from '../platform.ts';
import { recordInteractions } from '../recordings/record-interactions.ts';
import { recordingsDecider, recordingsStream } from '../recordings/recording.ts';
import { completeDueTasks } from './handlers.ts';
import { TASK_MS, allTasks, taskSlotsDecider } from './task-slot.ts';
import { tasksReplayTarget } from './index.ts';
import { replay } from '../kernel/replay.ts';

const T0 = Date.parse('2026-04-01T12:00:00Z');
const creds = { username: 'alice', apiKey: 'alice-key-0001' };
const REC = 'e'.repeat(40);

/** An account with one linkedin recording holding six interactions by three authors. */
async function setup() {
  const time = { now: T0 };
  const clock: Clock = { now: () => time.now };
  const engine = createEngine({ store: new MemoryEventStore(), clock, ids: seededIds(9) });
  await engine.openAccount({ username: 'alice', api_key: creds.apiKey, package: { redaction_audience_min: 1, redaction_bucket_min: 1 } });
  await engine.command(async (uow) => {
    const filter = await compileAndRegister(uow, 'li.content contains "coffee"', { register: true });
    await uow.execute(recordingsDecider, recordingsStream('alice'), {
      type: 'StartRecording',
      id: REC,
      hash: filter.hash,
      name: 'coffee',
      service: 'linkedin',
      at: uow.now,
      identityId: null,
      concurrentLimit: 10,
      holdLimit: 1000,
    });
  });
  await engine.command(async (uow) => {
    const account = await uow.load(accountDecider, accountStream('alice'));
    const interactions = [0, 1, 2, 3, 4, 5].map((n) => ({
      interaction: { id: `i${n}`, created_at: T0 / 1000 - 600 + n },
      li: { content: 'coffee', user: { member: { id: `m${n % 3}`, metro_area: n < 4 ? 'paris' : 'lyon' } } },
    }));
    return recordInteractions({ uow, account, settings: engine.settings, now: uow.now }, interactions);
  });
  const call = (endpoint: EndpointId, params: Record<string, unknown> = {}, opts: { version?: VersionId; mediaType?: string } = {}) =>
    engine.call({ version: opts.version ?? '1.5', endpoint, credentials: creds, params, mediaType: opts.mediaType ?? 'application/json' });
  const task = {
    service: 'linkedin',
    subscription_id: REC,
    name: 'metro',
    type: 'analysis',
    parameters: { start: T0 / 1000 - 3600, end: T0 / 1000, parameters: { analysis_type: 'freqDist', parameters: { target: 'li.user.member.metro_area', threshold: 5 } } },
  };
  return { engine, time, call, task };
}

describe('analysis tasks through engine.call', () => {
  it('create answers 202 {id} (40 hex) with the queue headers, cost 5 and the allowance untouched', async () => {
    const { call, task, engine } = await setup();
    const a = await call('tasks.create', task);
    expect(a.status).toBe(202);
    expect((a.body as { id: string }).id).toMatch(/^[0-9a-f]{40}$/);
    expect(a.headers).toEqual({ 'X-Analysis-Tasks-Queued': '1', 'X-Analysis-Tasks-Queue-Limit': '1000' });
    expect(a.rate).toMatchObject({ cost: 5, remaining: 10000 });
    const b = await call('tasks.create', { ...task, name: 'second' });
    expect(b.headers!['X-Analysis-Tasks-Queued']).toBe('2');
    expect((await engine.accountView('alice')).allowances.general.remaining).toBe(10000);
  });

  it('answers 415 unless the media type is application/json, and queues nothing', async () => {
    const { call, task } = await setup();
    expect((await call('tasks.create', task, { mediaType: 'application/x-www-form-urlencoded' })).status).toBe(415);
    expect((await call('tasks.create', task, { mediaType: 'application/json; charset=utf-8' })).status).toBe(202);
    expect((await call('tasks.list', { service: 'linkedin' })).body).toMatchObject({ count: 1 });
  });

  it('refuses bad input with clear 400s', async () => {
    const { call, task } = await setup();
    expect((await call('tasks.create', { ...task, subscription_id: 'f'.repeat(40) })).body).toMatchObject({ error: expect.stringMatching(/names no recording/) });
    expect((await call('tasks.create', { ...task, service: 'facebook' })).body).toMatchObject({ error: expect.stringMatching(/records linkedin, not facebook/) });
    expect((await call('tasks.create', { ...task, service: 'myspace' })).status).toBe(400);
    expect((await call('tasks.create', { ...task, type: 'strategy' }, { version: '1.4' })).body).toEqual({ error: 'type is invalid; valid values are: analysis' });
    expect((await call('tasks.create', { ...task, type: 'insight' })).body).toEqual({ error: 'type is invalid; valid values are: analysis,strategy' });
    expect((await call('tasks.create', { ...task, parameters: { parameters: { analysis_type: 'pie' } } })).body).toEqual({ error: 'parameters.parameters.analysis_type must be freqDist or timeSeries, not "pie"' });
    // The analysis request is read by its schema inside the task's `parameters`: a refusal names the whole path.
    const threshold = { parameters: { analysis_type: 'freqDist', parameters: { target: 'li.user.member.employer_industry_sectors', threshold: 500 } } };
    expect((await call('tasks.create', { ...task, parameters: threshold })).body).toEqual({ error: 'parameters.parameters.parameters.threshold must be at most 200' });
    expect((await call('tasks.create', { ...task, parameters: { ...task.parameters, start: 200, end: 100 } })).body).toEqual({ error: 'parameters: Start cannot be after end' });
    const { parameters: _omit, ...noParams } = task;
    expect((await call('tasks.create', noParams)).body).toEqual({ error: "Missing param 'parameters'" });
  });

  it('a task is queued until its slot finishes it 22.5 s later, then completed with its result', async () => {
    const { call, task, time } = await setup();
    const { id } = (await call('tasks.create', task)).body as { id: string };
    const queued = await call('tasks.get', { service: 'linkedin', id });
    expect(queued.body).toMatchObject({ id, status: 'queued', result: null, steps_completed: null, total_steps: null, usage: { analysis_tasks: 1 }, subscription_id: REC, type: 'analysis' });
    time.now += TASK_MS;
    const done = await call('tasks.get', { service: 'linkedin', id });
    expect(done.body).toMatchObject({
      status: 'completed',
      steps_completed: 1,
      total_steps: 1,
      updated_at: Math.floor((T0 + TASK_MS) / 1000),
      result: {
        interactions: 6,
        unique_authors: 3,
        analysis: {
          analysis_type: 'freqDist',
          redacted: false,
          results: [
            { key: 'paris', interactions: 4, unique_authors: 3 },
            { key: 'lyon', interactions: 2, unique_authors: 2 },
          ],
        },
      },
    });
  });

  it('lists with status filter and pages; list items carry result null; v1.5 takes the type in the path', async () => {
    const { call, task, time } = await setup();
    const ids: string[] = [];
    for (let k = 0; k < 3; k++) ids.push(((await call('tasks.create', { ...task, name: `t${k}` })).body as { id: string }).id);
    time.now += TASK_MS;
    const completed = await call('tasks.list', { service: 'linkedin', status: 'completed' });
    expect(completed.body).toMatchObject({ count: 1, page: 1, pages: 1, per_page: 25, tasks: [{ id: ids[0], status: 'completed', result: null }] });
    expect((await call('tasks.list', { service: 'linkedin', status: 'queued', per_page: 1, page: 2 })).body).toMatchObject({ count: 2, pages: 2, tasks: [{ id: ids[2] }] });
    expect((await call('tasks.list', { service: 'linkedin', type: 'strategy' })).body).toMatchObject({ count: 0 });
    expect((await call('tasks.list', { service: 'linkedin', status: 'done' })).status).toBe(400);
    expect((await call('tasks.get', { service: 'linkedin', type: 'analysis', id: ids[0] })).status).toBe(200);
    expect((await call('tasks.get', { service: 'linkedin', type: 'strategy', id: ids[0] })).status).toBe(404);
    expect(await call('tasks.get', { service: 'linkedin', id: 'a'.repeat(40) })).toMatchObject({ status: 404, body: { error: 'Task not found' } });
  });

  it('an operator step can record completions at once: TaskCompleted dated at the finish, with the result', async () => {
    const { call, task, time, engine } = await setup();
    await call('tasks.create', task);
    time.now += 3 * TASK_MS;
    await engine.command(async (uow) => completeDueTasks({ uow, recordingIndex: engine.recordingIndex, account: await uow.load(accountDecider, accountStream('alice')), now: uow.now }));
    const events = (await engine.store.readStream('tasks:alice', 0)).filter((e) => e.type === 'TaskCompleted');
    expect(events).toHaveLength(1);
    expect(events[0]!.data).toMatchObject({ at: T0 + TASK_MS, message: '', result: { interactions: 6 } });
  });

  it('replaying the log rebuilds the task slots the engine holds', async () => {
    const { call, task, time, engine } = await setup();
    for (let k = 0; k < 4; k++) await call('tasks.create', { ...task, name: `t${k}` });
    time.now += 2 * TASK_MS;
    await call('tasks.list', { service: 'linkedin' });
    const report = await replay(engine.store, [tasksReplayTarget]);
    const rebuilt = report.aggregates.get('tasks.v2|tasks:alice')!.state;
    expect(rebuilt).toEqual((await engine.loader.load(taskSlotsDecider, 'tasks:alice')).state);
    expect(allTasks(rebuilt as never).filter((t) => t.completed)).toHaveLength(2);
  });

  it('records the task the identity key made it with', async () => {
    const { call, task, engine } = await setup();
    const identity = (await call('account.identity.create', { label: 'analyst' })).body as { id: string; api_key: string };
    const a = await engine.call({ version: '1.5', endpoint: 'tasks.create', credentials: { username: 'alice', apiKey: identity.api_key }, params: task, mediaType: 'application/json' });
    const got = await call('tasks.get', { service: 'linkedin', id: (a.body as { id: string }).id });
    expect(got.body).toMatchObject({ identity_id: identity.id });
  });
});
