import { describe, expect, it } from 'vitest';
import { given } from '../../test/given-log.ts';
import { identitiesStream, type IdentityEvent } from '../identities/identity.ts';
import { MemoryEventStore } from '../kernel/memory-store.ts';
import { RESOURCE_STREAMS } from '../platform-log.ts';
import { recordingsStream, type RecordingEvent } from '../recordings/recording.ts';
import { RESOURCE_KINDS, TRANSITIONS_KEPT, resourceHistory } from './resource-history.ts';

const started = (id: string, name: string, at: number): RecordingEvent => ({ type: 'RecordingStarted', data: { id, hash: 'h', name, service: 'facebook', at, identityId: null } });

describe("an account's resources and their transitions (read model)", () => {
  it('given a recording started, stopped and restarted, shows it running, with each event and the state it left', async () => {
    const store = new MemoryEventStore();
    await given(store, recordingsStream('ada'), 10, started('r1', 'tea talk', 10));
    await given(store, recordingsStream('ada'), 20, { type: 'RecordingStopped', data: { id: 'r1', at: 20 } });
    await given(store, recordingsStream('ada'), 30, { type: 'RecordingRestarted', data: { id: 'r1', at: 30, name: 'tea again' } });
    await given(store, recordingsStream('someone-else'), 40, started('r2', 'not hers', 40));

    expect(await resourceHistory(store, 'ada')).toEqual([
      {
        kind: 'recordings',
        id: 'r1',
        name: 'tea again',
        state: 'running',
        transitions: [
          { position: 1, time: 10, type: 'RecordingStarted', state: 'running' },
          { position: 2, time: 20, type: 'RecordingStopped', state: 'stopped' },
          { position: 3, time: 30, type: 'RecordingRestarted', state: 'running' },
        ],
      },
    ]);
  });

  it("keeps an identity's own state while its tokens come and go, and names it by its label", async () => {
    const store = new MemoryEventStore();
    const events: IdentityEvent[] = [
      { type: 'IdentityCreated', data: { id: 'i1', label: 'shop', keyHash: 'k', status: 'active', master: false, at: 1 } },
      { type: 'IdentityTokenCreated', data: { identityId: 'i1', service: 'facebook', token: 't', at: 2 } },
      { type: 'IdentityUpdated', data: { id: 'i1', label: 'shop', status: 'disabled', master: false, at: 3 } },
      { type: 'IdentityTokenDeleted', data: { identityId: 'i1', service: 'facebook', at: 4 } },
    ];
    for (const e of events) await given(store, identitiesStream('ada'), (e.data as { at: number }).at, e);
    const [identity] = await resourceHistory(store, 'ada');
    expect(identity).toMatchObject({ kind: 'identities', id: 'i1', name: 'shop', state: 'disabled' });
    expect(identity!.transitions.map((t) => [t.type, t.state])).toEqual([
      ['IdentityCreated', 'active'],
      ['IdentityTokenCreated', 'active'],
      ['IdentityUpdated', 'disabled'],
      ['IdentityTokenDeleted', 'disabled'],
    ]);
  });

  it(`keeps the newest ${TRANSITIONS_KEPT} transitions of a resource, and lists kinds in their order`, async () => {
    const store = new MemoryEventStore();
    await given(store, identitiesStream('ada'), 0, { type: 'IdentityCreated', data: { id: 'i1', label: 'l', keyHash: 'k', status: 'active', master: false, at: 0 } });
    await given(store, recordingsStream('ada'), 0, started('r1', 'busy', 0));
    for (let n = 1; n <= 2 * TRANSITIONS_KEPT + 10; n++) await given(store, recordingsStream('ada'), n, { type: 'RecordingUpdated', data: { id: 'r1', at: n } });
    const history = await resourceHistory(store, 'ada');
    expect(history.map((r) => r.kind)).toEqual(['recordings', 'identities']);
    expect(history[0]!.transitions).toHaveLength(TRANSITIONS_KEPT);
    expect(history[0]!.transitions.at(-1)!.time).toBe(2 * TRANSITIONS_KEPT + 10);
    expect(history[0]!.state).toBe('running');
  });

  it('names every resource stream the platform has, and shows nothing for an account without resources', async () => {
    expect([...RESOURCE_KINDS].sort()).toEqual(Object.keys(RESOURCE_STREAMS).sort());
    expect(await resourceHistory(new MemoryEventStore(), 'nobody')).toEqual([]);
  });
});
