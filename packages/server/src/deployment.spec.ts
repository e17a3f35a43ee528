import { describe, expect, it } from 'vitest';
import { chooseWritePolicy, MemoryEventStore } from '@sdp/core/kernel';
import { deploymentOf } from './server.ts';
import { defaultSettings } from './settings.ts';

describe('the server turns its settings into a deployment, and the store record into a write policy', () => {
  const settings = defaultSettings();

  it('one server with no workers is alone; a handed worker and a server routed by account own their accounts; several processes unrouted share', () => {
    expect(deploymentOf(settings, {})).toBe('alone');
    expect(deploymentOf({ ...settings, workers: 4 }, { handed: { port: 1 } })).toBe('owns-accounts');
    expect(deploymentOf({ ...settings, routing: 'account' }, {})).toBe('owns-accounts');
    expect(deploymentOf({ ...settings, workers: 2 }, {})).toBe('any');
  });

  it('the policy follows what the store says it is, whatever its URL looked like', () => {
    const memory = new MemoryEventStore();
    expect(chooseWritePolicy(memory.capabilities, deploymentOf(settings, {})).name).toBe('sole-writer');
    const database = { ...memory.capabilities, kind: 'a database server', reach: 'network' as const };
    expect(chooseWritePolicy(database, deploymentOf(settings, {})).name).toBe('shared');
    expect(chooseWritePolicy(database, deploymentOf({ ...settings, routing: 'account' }, {})).name).toBe('account-owner');
  });
});
