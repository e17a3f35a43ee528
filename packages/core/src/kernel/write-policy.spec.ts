import { describe, expect, it } from 'vitest';
import type { StoreCapabilities } from './store-capabilities.ts';
import { chooseWritePolicy, defaultWritePolicy, WRITE_POLICIES, type Deployment } from './write-policy.ts';

const REACHES: StoreCapabilities['reach'][] = ['process', 'machine', 'network'];
const DEPLOYMENTS: Deployment[] = ['alone', 'owns-accounts', 'any'];
const store = (reach: StoreCapabilities['reach'], checksLastEventId: boolean): StoreCapabilities => ({ kind: 'test', reach, checksLastEventId, freshReads: false });
const every = REACHES.flatMap((reach) => [true, false].flatMap((checks) => DEPLOYMENTS.map((d) => [store(reach, checks), d] as const)));

describe('chooseWritePolicy: trust chosen once, by name, from the store record and the deployment', () => {
  it('the policies as the server meets them', () => {
    expect(chooseWritePolicy(store('process', true), 'alone').name).toBe('sole-writer');
    expect(chooseWritePolicy(store('machine', true), 'alone').name).toBe('sole-writer');
    expect(chooseWritePolicy(store('machine', true), 'owns-accounts').name).toBe('account-owner');
    expect(chooseWritePolicy(store('network', true), 'alone').name).toBe('shared');
    expect(chooseWritePolicy(store('network', true), 'owns-accounts').name).toBe('account-owner');
    expect(chooseWritePolicy(store('network', true), 'any').name).toBe('shared');
    expect(chooseWritePolicy(store('network', false), 'any').name).toBe('shared-serial');
  });

  it('a cache is trusted only where no other process is sent the account: the store reaches this process alone, a server is alone on a file, or it owns its accounts', () => {
    for (const [caps, d] of every) {
      const mayTrust = caps.reach === 'process' || (d === 'alone' && caps.reach === 'machine') || d === 'owns-accounts';
      expect(chooseWritePolicy(caps, d).trustsCache, `${caps.reach} ${d}`).toBe(mayTrust);
    }
  });

  it('pipelining over a store others write needs the last event id checked: a shared policy that pipelines is one whose store checks it', () => {
    for (const [caps, d] of every) {
      const policy = chooseWritePolicy(caps, d);
      if (!policy.trustsCache && policy.pipelines) expect(caps.checksLastEventId, `${caps.reach} ${d}`).toBe(true);
    }
  });

  it('each choice is one of the named policies, itself', () => {
    for (const [caps, d] of every) {
      const policy = chooseWritePolicy(caps, d);
      expect(WRITE_POLICIES[policy.name]).toBe(policy);
    }
  });

  it('told nothing, an engine assumes any process its store reaches may write', () => {
    expect(defaultWritePolicy(store('process', true)).name).toBe('sole-writer');
    expect(defaultWritePolicy(store('machine', true)).name).toBe('shared');
    expect(defaultWritePolicy(store('network', false)).name).toBe('shared-serial');
  });
});
