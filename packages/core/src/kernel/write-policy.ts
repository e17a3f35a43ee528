import type { StoreCapabilities } from './store-capabilities.ts';

/**
 * How an engine writes, chosen once at start-up from the store's capabilities and the deployment
 * (`chooseWritePolicy`). The engine follows its two answers and never asks where it runs.
 */
export interface WritePolicy {
  /** The policy's name, for people and tests (`WRITE_POLICIES` holds them all). */
  readonly name: WritePolicyName;
  /**
   * A cached state is answered at once, with no read of the stream's tail: no other process writes this
   * process' accounts, or only rarely, and then the read guards catch it and the retry reads the tail.
   */
  readonly trustsCache: boolean;
  /**
   * An account's next call decides on the pending states of the one before it while they become durable
   * (the lane is left when the append is asked): safe where no other process writes the account, or where
   * the store checks the last event id a write expects.
   */
  readonly pipelines: boolean;
}

export type WritePolicyName = 'sole-writer' | 'account-owner' | 'shared' | 'shared-serial';

/** Every policy, by name. */
export const WRITE_POLICIES: { readonly [N in WritePolicyName]: WritePolicy & { readonly name: N } } = {
  /** Nothing but this process writes the data (the memory store; one server on a SQLite file). */
  'sole-writer': { name: 'sole-writer', trustsCache: true, pipelines: true },
  /**
   * Other processes write the data, but the calls of this process' accounts come only here (a worker of
   * `--workers`; a server behind a balancer routing by account): a write made beside it is rare, and met
   * by the read guards.
   */
  'account-owner': { name: 'account-owner', trustsCache: true, pipelines: true },
  /** Any process may write any account, on a store that checks the last event id a write expects. */
  shared: { name: 'shared', trustsCache: false, pipelines: true },
  /** Any process may write any account, on a store that checks versions only: each write waits its turn. */
  'shared-serial': { name: 'shared-serial', trustsCache: false, pipelines: false },
};

/**
 * Where a server runs, as its settings say: the one server on its store (`alone`), a process the calls of
 * its accounts are routed to (`owns-accounts`: a worker, or routed by account), or one of several any call
 * may reach (`any`).
 */
export type Deployment = 'alone' | 'owns-accounts' | 'any';

/**
 * The one place trust is chosen. A store only this process can reach has no other writer, whatever the
 * deployment; a server alone on a file is its sole writer; one alone on a database server is not (another
 * may connect to it at any time), so it shares, as does any process others may outrun.
 */
export function chooseWritePolicy(store: StoreCapabilities, deployment: Deployment): WritePolicy {
  if (store.reach === 'process' || (deployment === 'alone' && store.reach === 'machine')) return WRITE_POLICIES['sole-writer'];
  if (deployment === 'owns-accounts') return WRITE_POLICIES['account-owner'];
  return store.checksLastEventId ? WRITE_POLICIES.shared : WRITE_POLICIES['shared-serial'];
}

/** What an engine assumes when told nothing of its deployment: any process the store reaches may write. */
export function defaultWritePolicy(store: StoreCapabilities): WritePolicy {
  return chooseWritePolicy(store, 'any');
}
