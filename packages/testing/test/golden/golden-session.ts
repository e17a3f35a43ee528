import { PushDelivery, applySemanticFault, createEngine, type ApiCall, type CallAnswer, type DeliveryOutcome, type Engine, type EndpointId, type PushBatch } from '@sdp/core';
import { historicsDecider, historicsStream } from '@sdp/core/deciders';
import { StreamCalls, catchUpFirehose, feed, switchFirehoseOff, switchFirehoseOn } from '@sdp/core/internal';
import {
  seededIds,
  type EventStore,
} from '@sdp/core/kernel';

/** Where the session starts: a Monday morning (UTC). */
export const SESSION_START = Date.parse('2026-03-02T09:00:00Z');
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

export interface GoldenSession {
  engine: Engine;
  /** Calls that did not answer as the script expected: the session is wrong if any. */
  surprises: string[];
}

/**
 * A scripted session of two accounts that makes the platform write every event type it has: accounts
 * and their packages, charges, filters, recordings fed by the firehose and by a managed source, the
 * daily capacity, historics, previews, tasks, identities, push subscriptions (pulled, and delivered by
 * a connector that fails and then abandons), a stream connection's subscriptions, idempotency keys and the operator's semantic faults. Ids
 * come from a seed and time from a clock the script moves, so two runs write the same log.
 */
export async function runGoldenSession(store: EventStore): Promise<GoldenSession> {
  const time = { now: SESSION_START };
  const engine = createEngine({ store, clock: { now: () => time.now }, ids: seededIds(11) });
  const surprises: string[] = [];
  const at = (ms: number) => {
    time.now = Math.max(time.now, ms);
  };
  const later = (ms: number) => at(time.now + ms);

  const ada = { username: 'ada', apiKey: 'ada-key-0000000000000001' };
  const bob = { username: 'bob', apiKey: 'bob-key-0000000000000002' };
  const callAs = async (who: { username: string; apiKey: string }, endpoint: EndpointId, params: Record<string, unknown> = {}, expect = 2, extra: Partial<ApiCall> = {}): Promise<CallAnswer> => {
    const answer = await engine.call({ version: '1.5', endpoint, credentials: who, params, mediaType: 'application/json', ...extra });
    if (Math.floor(answer.status / 100) !== expect) surprises.push(`${endpoint} ${JSON.stringify(params)} answered ${answer.status} ${JSON.stringify(answer.body)}`);
    return answer;
  };
  const call = (endpoint: EndpointId, params: Record<string, unknown> = {}, expect = 2, extra: Partial<ApiCall> = {}) => callAs(ada, endpoint, params, expect, extra);
  const body = (a: CallAnswer) => a.body as Record<string, any>;

  // Accounts: opened, package changed, denied and allowed again, key replaced (and the new key used).
  await engine.openAccount({ username: ada.username, api_key: ada.apiKey, package: { task_slots: 2, services: ['facebook', 'linkedin', 'twitter_gnip', 'tumblr'] } });
  await engine.openAccount({ username: bob.username, api_key: bob.apiKey, package: { credits_per_hour: 50 } });
  await engine.changePackage('bob', { concurrent_recordings: 2, redaction_audience_min: 10 });
  await engine.deny('bob', 'terms of use');
  await callAs(bob, 'core.balance', {}, 4);
  await engine.allow('bob');
  bob.apiKey = 'bob-key-0000000000000003';
  await engine.replaceApiKey('bob', bob.apiKey);
  await callAs(bob, 'core.balance');

  // Filters and recordings: compiled, started, updated, stopped, restarted.
  const coffee = body(await call('core.compile', { csdl: 'fb.content contains "coffee" or li.content contains "coffee"' })).hash as string;
  const tea = body(await call('core.compile', { csdl: 'interaction.content contains_any "tea,chai"' })).hash as string;
  await call('core.validate', { csdl: 'fb.content contains "x"' });
  const rec = body(await call('insight.start', { hash: coffee, name: 'coffee', service: 'facebook' })).id as string;
  const rec2 = body(await call('insight.start', { hash: tea, name: 'tea', service: 'facebook' })).id as string;
  await call('insight.update', { id: rec2, name: 'tea and chai' });
  await call('insight.stop', { id: rec2 });
  await call('insight.start', { id: rec2, name: 'tea again', hash: tea, service: 'facebook' });
  const li = body(await call('insight.start', { hash: coffee, name: 'coffee on linkedin', service: 'linkedin' })).id as string;

  // The firehose: switched on with a backfill, fed, caught up, switched off; a direct feed as well.
  await switchFirehoseOn(engine, 'ada', { service: 'facebook', perMinute: 3, seed: 7, backfillMinutes: 10 });
  later(5 * MINUTE);
  await catchUpFirehose(engine, 'ada');
  await switchFirehoseOff(engine, 'ada');
  await feed(engine, 'ada', { service: 'linkedin', perMinute: 3, seed: 3 }, time.now - 10 * MINUTE, time.now);
  await call('insight.analyze', { id: rec, parameters: { analysis_type: 'freqDist', parameters: { target: 'fb.author.gender', threshold: 2 } } });
  await call('insight.sample', { id: rec, count: 2 });

  // A managed source: created, updated, auth and resources added and removed, started, fed, stopped, deleted.
  const source = body(await call('source.create', { source_type: 'twitter_gnip', name: 'gnip', resources: [{ parameters: { mapping: 'gnip_1' } }] })).id as string;
  await call('source.update', { id: source, name: 'gnip stream' });
  const withAuth = body(await call('source.auth.add', { id: source, auth: [{ parameters: { value: 'token-1' } }] }));
  await call('source.auth.remove', { id: source, auth_ids: JSON.stringify([withAuth.auth.at(-1).identity_id]) });
  const withResources = body(await call('source.resource.add', { id: source, resources: [{ parameters: { mapping: 'gnip_2' } }] }));
  await call('source.resource.remove', { id: source, resource_ids: JSON.stringify([withResources.resources.at(-1).resource_id]) });
  await call('source.start', { id: source });
  // The stream product: a connection subscribed to a hash while an ingestion matches for it (the repeat
  // charges nothing), its deliveries recorded, unsubscribed, a second hash left to the disconnect.
  const streams = new StreamCalls(engine);
  const connection = ((await streams.open(ada, 'websocket')).body as { connection: string }).connection;
  await streams.subscribe(ada, connection, coffee);
  await streams.subscribe(ada, connection, coffee);
  await streams.subscribe(ada, connection, tea);
  const ingested = ['g1', 'g2', 'g3'].map((i) => JSON.stringify({ interaction: { id: i, created_at: Math.floor(time.now / 1000) }, fb: { content: `coffee ${i}`, author: { id: `a-${i}` } } })).join('\n');
  await call('ingest', { source_id: source }, 2, { body: ingested, mediaType: 'application/json' });
  // What a transport delivered of it, recorded as counts (the host writes them so).
  await streams.deliveries('ada', { [String(Math.floor(time.now / 60_000) * 60_000)]: { [coffee]: { interaction: 3, facebook: 3 } } });
  await streams.unsubscribe('ada', connection, coffee);
  await streams.close('ada', connection, 'client closed');

  // Push: a pull subscription pulled, paused, resumed, updated, stopped, deleted; a connector's
  // subscription delivered, then failing until it is abandoned.
  const pull = body(await call('push.create', { name: 'pulled', output_type: 'pull', output_params: { format: 'json_array' }, hash: coffee })).id as string;
  await call('push.pull', { id: pull });
  await call('push.pause', { id: pull });
  await call('push.resume', { id: pull });
  await call('push.update', { id: pull, name: 'pulled, renamed' });
  await call('push.stop', { id: pull });
  const doomed = body(await call('push.create', { name: 'doomed', output_type: 'pull', output_params: { format: 'json_array' }, hash: tea })).id as string;
  await call('push.delete', { id: doomed });
  const bucket = { failing: false, kept: [] as PushBatch[] };
  const delivery = new PushDelivery(engine).connect('s3', {
    async deliver(batch: PushBatch): Promise<DeliveryOutcome> {
      if (bucket.failing) return { ok: false, message: 'The bucket refused the object' };
      bucket.kept.push(batch);
      return { ok: true };
    },
  });
  const pushed = body(await call('push.create', { name: 'bucket', output_type: 's3', output_params: { bucket: 'b', auth: { access_key: 'k', secret_key: 's' }, format: 'json_array', delivery_frequency: 10 }, hash: coffee })).id as string;
  await call('ingest', { source_id: source }, 2, { body: ['g4', 'g5'].map((i) => JSON.stringify({ interaction: { id: i, created_at: Math.floor(time.now / 1000) }, fb: { content: `coffee ${i}`, author: { id: `a-${i}` } } })).join('\n'), mediaType: 'application/json' });
  const runDelivery = async (until: number) => {
    let next = await delivery.deliverDue('ada', pushed);
    while (next !== null && next <= until) {
      at(next);
      next = await delivery.deliverDue('ada', pushed);
    }
    at(until);
  };
  await runDelivery(time.now + MINUTE);
  bucket.failing = true;
  await call('ingest', { source_id: source }, 2, { body: JSON.stringify({ interaction: { id: 'g6', created_at: Math.floor(time.now / 1000) }, fb: { content: 'coffee g6', author: { id: 'a-g6' } } }), mediaType: 'application/json' });
  await runDelivery(time.now + 3 * 24 * HOUR);
  await call('push.get', { id: pushed });
  await call('source.stop', { id: source });
  await call('source.delete', { id: source });
  await call('insight.stop', { id: li });

  // Historics: prepared, started, paused, resumed, renamed, run to success; another stopped; another
  // failed (no endpoint fails a query yet: the platform's own command does, as a source outage would)
  // and one deleted.
  const start = Math.floor((time.now - 10 * 24 * HOUR) / 1000);
  const end = start + 6 * 3600;
  const prepare = async (name: string) => body(await call('historics.prepare', { hash: coffee, start, end, sources: 'facebook', name })).id as string;
  const past = await prepare('past coffee');
  await call('historics.start', { id: past });
  later(2 * MINUTE);
  await call('historics.pause', { id: past });
  await call('historics.resume', { id: past });
  await call('historics.update', { id: past, name: 'renamed past' });
  const stopped = await prepare('stopped');
  await call('historics.start', { id: stopped });
  await call('historics.stop', { id: stopped });
  const failing = await prepare('failing');
  await call('historics.start', { id: failing });
  await engine.command((uow) => uow.execute(historicsDecider, historicsStream('ada'), { type: 'FailHistorics', id: failing, at: uow.now, reason: 'source outage' }));
  const deleted = await prepare('deleted');
  await call('historics.delete', { id: deleted });
  later(2 * 24 * HOUR);
  await call('historics.get', { id: past });
  await call('historics.status', { start, end, sources: 'facebook' });

  // Previews: created and, once the clock has run it, succeeded.
  const preview = body(await call('preview.create', { hash: coffee, start, end, parameters: 'fb.author.gender,freqDist,5;interaction.id,targetVol,hour' })).id as string;
  later(HOUR);
  await call('preview.get', { id: preview });

  // Tasks: queued, completed; then the operator fills the queue.
  await feed(engine, 'ada', { service: 'facebook', perMinute: 3, seed: 9 }, time.now - 10 * MINUTE, time.now);
  const task = body(
    await call('tasks.create', {
      service: 'facebook',
      subscription_id: rec,
      name: 'genders',
      type: 'analysis',
      parameters: { start: Math.floor(time.now / 1000) - 3600, end: Math.floor(time.now / 1000), parameters: { analysis_type: 'freqDist', parameters: { target: 'fb.author.gender', threshold: 2 } } },
    }),
  ).id as string;
  later(10 * MINUTE);
  await call('tasks.get', { service: 'facebook', id: task });
  await applySemanticFault(engine, 'fill_task_queue', 'ada');

  // Identities: an identity with a token and a limit, each updated and deleted, then the identity.
  const identity = body(await call('account.identity.create', { label: 'team' })).id as string;
  await call('account.identity.update', { id: identity, label: 'team two' });
  await call('account.identity.token.create', { identity_id: identity, service: 'facebook', token: 'tok-1' });
  await call('account.identity.token.update', { identity_id: identity, service: 'facebook', token: 'tok-2' });
  await call('account.identity.token.delete', { identity_id: identity, service: 'facebook' });
  await call('account.identity.limit.create', { identity_id: identity, service: 'facebook', total_allowance: 100 });
  await call('account.identity.limit.update', { identity_id: identity, service: 'facebook', total_allowance: 50 });
  await call('account.identity.limit.delete', { identity_id: identity, service: 'facebook' });
  await call('account.identity.delete', { id: identity });

  // An idempotent call, repeated; the day's recording capacity reached by the operator.
  await call('core.balance', {}, 2, { idempotencyKey: 'golden-1' });
  await call('core.balance', {}, 2, { idempotencyKey: 'golden-1' });
  await applySemanticFault(engine, 'reach_recording_capacity', 'ada');
  return { engine, surprises };
}
