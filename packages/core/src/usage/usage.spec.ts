import type { EndpointId } from '../catalogue/endpoints.ts';
import { describe, expect, it } from 'vitest';
import { Engine } from '../pipeline/engine.ts';
import { MemoryEventStore } from '../kernel/memory-store.ts';
import { seededIds } from '../kernel/ports.ts';
import type { VersionId } from '../catalogue/versions.ts';
import { filterHandlers } from '../filters/handlers.ts';
import { recordingHandlers } from '../recordings/handlers.ts';
import { analysisHandlers } from '../analysis/handlers.ts';
import { firehose } from '../firehose/firehose.ts';
import { usageDate, usageHandlers } from './usage.ts';

const T0 = Date.parse('2026-05-10T10:00:00Z');

async function platform() {
  const time = { now: T0 };
  const engine = new Engine({ store: new MemoryEventStore(), clock: { now: () => time.now }, ids: seededIds(2), handlers: { ...filterHandlers, ...recordingHandlers, ...analysisHandlers, ...usageHandlers } });
  await engine.openAccount({ username: 'u', api_key: 'u-key-00001', package: { index_capacity_per_month: 30_000_000 } });
  const call = (version: VersionId, endpoint: EndpointId, params: Record<string, unknown> = {}) => engine.call({ version, endpoint, credentials: { username: 'u', apiKey: 'u-key-00001' }, params });
  return { engine, time, call };
}

describe('usage and balance', () => {
  it('core /usage: {} (v1.1+) or [] (v1.0) when nothing ran; 400 for an unknown period', async () => {
    const p = await platform();
    expect((await p.call('1.5', 'core.usage')).body).toEqual({});
    expect((await p.call('1.0', 'core.usage')).body).toEqual([]);
    expect(await p.call('1.5', 'core.usage', { period: 'week' })).toMatchObject({ status: 400, body: { error: 'period is invalid; valid values are: current,day,hour' } });
  });

  it('core /usage: per hash, interactions kept and seconds running within the period', async () => {
    const p = await platform();
    const hash = ((await p.call('1.5', 'insight.compile', { csdl: 'fb.type == "like"' })).body as { hash: string }).hash;
    await p.call('1.5', 'insight.start', { hash, name: 'likes' });
    await firehose.switchOn(p.engine, 'u', { service: 'facebook', perMinute: 20, seed: 4 });
    p.time.now += 30 * 60_000;
    const fed = await firehose.catchUp(p.engine, 'u');
    const u = await p.call('1.5', 'core.usage', { period: 'hour' });
    expect(u.body).toEqual({
      start: usageDate(Date.parse('2026-05-10T09:30:00Z')),
      end: usageDate(Date.parse('2026-05-10T10:30:00Z')),
      streams: { [hash]: { licenses: { interaction: fed.recorded, facebook: fed.recorded }, seconds: 30 * 60 } },
    });
    expect(usageDate(0)).toBe('Thu, 01 Jan 1970 00:00:00 +0000');
  });

  it('/account/usage: realtime interactions and analysis queries per bucket; [] when empty; 400 for a bad period', async () => {
    const p = await platform();
    expect((await p.call('1.5', 'account.usage', { period: 'hourly' })).body).toEqual([]);
    expect(await p.call('1.5', 'account.usage', { period: 'weekly' })).toMatchObject({ status: 400, body: { error: 'period is invalid; valid values are: hourly,daily,monthly' } });
    const hash = ((await p.call('1.5', 'insight.compile', { csdl: 'fb.type exists' })).body as { hash: string }).hash;
    const id = ((await p.call('1.5', 'insight.start', { hash, name: 'all' })).body as { id: string }).id;
    await firehose.switchOn(p.engine, 'u', { service: 'facebook', perMinute: 10, seed: 4 });
    p.time.now += 90 * 60_000;
    await firehose.catchUp(p.engine, 'u');
    await p.call('1.5', 'insight.analyze', { id, parameters: { analysis_type: 'timeSeries', parameters: { interval: 'hour' } } });
    const u = await p.call('1.5', 'account.usage', { period: 'hourly' });
    const lines = (u.body as { usage: { category: string; quantity: number; timestamp: number }[] }).usage;
    const realtime = lines.filter((l) => l.category === 'realtime');
    expect(realtime.map((l) => l.timestamp)).toEqual([Date.parse('2026-05-10T10:00:00Z') / 1000, Date.parse('2026-05-10T11:00:00Z') / 1000]);
    expect(realtime.reduce((n, l) => n + l.quantity, 0)).toBe(90 * 10);
    expect(lines.filter((l) => l.category === 'analysis')).toEqual([{ quantity: 1, cost: 0, category: 'analysis', unit: 'query', source: '', timestamp: Date.parse('2026-05-10T11:00:00Z') / 1000 }]);
  });

  it('/balance: the package allowances and what is used of them', async () => {
    const p = await platform();
    const b = await p.call('1.5', 'core.balance');
    const allowances = (b.body as { balance: { allowances: { name: string; allowance: number; usage: number; remaining: number }[] } }).balance.allowances;
    expect(allowances[0]).toMatchObject({ allowance: 30_000_000, usage: 0, remaining: 30_000_000 });
    expect(allowances[1]).toMatchObject({ allowance: 10_000, usage: 25, remaining: 9_975 });
  });
});
