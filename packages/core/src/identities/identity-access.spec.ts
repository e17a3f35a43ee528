import { fc, test } from '@fast-check/vitest';
import { expect } from 'vitest';
import { MemoryEventStore } from '../kernel/memory-store.ts';
import { seededIds, type Clock } from '../kernel/ports.ts';
import { createEngine } from '../platform.ts';

const HOUR = 3_600_000;
const MINUTE = 60_000;
const COST = 5; // account.identity.list

/** A window as docs/contract.md#hourly-allowances opens it: at the minute mark of the first charged call, for one hour. */
interface Window {
  reset: number;
  used: number;
}
function room(w: Window | undefined, at: number, limit: number): { ok: boolean; fresh: boolean } {
  const fresh = !w || at >= w.reset;
  const used = fresh ? 0 : w!.used;
  return { ok: limit - used >= COST, fresh };
}
function charge(windows: Map<string, Window>, key: string, at: number, fresh: boolean): void {
  if (fresh) windows.set(key, { reset: Math.floor(at / MINUTE) * MINUTE + HOUR, used: COST });
  else windows.get(key)!.used += COST;
}

type Step = { kind: 'identity' | 'account' } | { kind: 'advance'; minutes: number };

test.prop(
  [
    fc.integer({ min: 0, max: 60 }),
    fc.integer({ min: 0, max: 80 }),
    fc.array(
      fc.oneof(
        fc.constant<Step>({ kind: 'identity' }),
        fc.constant<Step>({ kind: 'account' }),
        fc.integer({ min: 1, max: 50 }).map<Step>((minutes) => ({ kind: 'advance', minutes })),
      ),
      { maxLength: 40 },
    ),
  ],
  { numRuns: 40 },
)('calls made with an identity key never exceed its total_allowance in a window, the account limit still applies, and the headers show the allowance that binds the caller', async (identityAllowance, accountLimit, steps) => {
  const time = { now: Date.parse('2026-03-01T10:00:20Z') };
  const clock: Clock = { now: () => time.now };
  const engine = createEngine({ store: new MemoryEventStore(), clock, ids: seededIds(11) });
  // Setting the identity up is done on a roomy account, then the package is narrowed for the run.
  await engine.openAccount({ username: 'u', api_key: 'account-key-1' });
  const key = { username: 'u', apiKey: 'account-key-1' };
  const made = await engine.call({ version: '1.5', endpoint: 'account.identity.create', credentials: key, params: { label: 'i' } });
  const identity = made.body as { id: string; api_key: string };
  await engine.call({
    version: '1.5',
    endpoint: 'account.identity.limit.create',
    credentials: key,
    params: { identity_id: identity.id, service: 'facebook', total_allowance: identityAllowance },
  });
  await engine.changePackage('u', { credits_per_hour: accountLimit });
  time.now += 2 * HOUR; // a fresh account window for the run

  const windows = new Map<string, Window>();
  const spentInWindow = new Map<number, number>();
  for (const step of steps) {
    if (step.kind === 'advance') {
      time.now += step.minutes * MINUTE;
      continue;
    }
    const apiKey = step.kind === 'identity' ? identity.api_key : key.apiKey;
    const answer = await engine.call({ version: '1.5', endpoint: 'account.identity.list', credentials: { username: 'u', apiKey } });
    const acct = room(windows.get('account'), time.now, accountLimit);
    const ident = step.kind === 'identity' ? room(windows.get('identity'), time.now, identityAllowance) : { ok: true, fresh: false };
    const expected = acct.ok && ident.ok;
    expect(answer.status).toBe(expected ? 200 : 429);
    if (!expected) continue;
    charge(windows, 'account', time.now, acct.fresh);
    const accountLeft = accountLimit - windows.get('account')!.used;
    if (step.kind === 'account') expect(answer.rate).toMatchObject({ limit: accountLimit, remaining: accountLeft });
    if (step.kind === 'identity') {
      charge(windows, 'identity', time.now, ident.fresh);
      // The headers show the allowance that binds this caller: the one with the least left.
      const identityLeft = identityAllowance - windows.get('identity')!.used;
      const binding = identityLeft < accountLeft || (identityLeft === accountLeft && identityAllowance < accountLimit) ? { limit: identityAllowance, remaining: identityLeft } : { limit: accountLimit, remaining: accountLeft };
      expect(answer.rate).toMatchObject(binding);
      const reset = windows.get('identity')!.reset;
      spentInWindow.set(reset, (spentInWindow.get(reset) ?? 0) + COST);
      expect(spentInWindow.get(reset)!).toBeLessThanOrEqual(identityAllowance);
    }
    expect(windows.get('account')!.used).toBeLessThanOrEqual(accountLimit);
  }
  const view = await engine.accountView('u');
  const acctWindow = windows.get('account');
  if (acctWindow && time.now < acctWindow.reset) expect(view.allowances.general.remaining).toBe(accountLimit - acctWindow.used);
});
