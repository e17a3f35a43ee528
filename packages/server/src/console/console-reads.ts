import { AccountDirectory, DomainError, accountFigures, limitingDayOf, resourceHistory, type Engine, type ResourceHistory, type ResourceTransition } from '@sdp/core';
import type { EventStore } from '@sdp/core/kernel';
import { jsonResponse } from '@sdp/http';
import type { OperatorRoute } from '../operator-api.ts';
import type { WriteLog } from './write-log.ts';
import { groupWrites, type CallOfWrite } from './page/writes.js';

export interface Transition extends ResourceTransition {
  /** The call whose write held the event; null for the operator's or the clock's work. */
  call: (CallOfWrite & { position: number }) | null;
}

export interface ResourceView extends Omit<ResourceHistory, 'transitions'> {
  transitions: Transition[];
}

/** How far back from an event a write's charge can be (a call writes a handful of events). */
const WRITE_REACH = 32;

/**
 * The operator calls the console reads: every account with its gauges, and an account's resources with
 * the transitions the log records for each. Mounted beside the operator API, behind the same token.
 */
export function consoleReadRoutes(engine: Engine, clock: { kind?: string }, writes: WriteLog): OperatorRoute[] {
  const directory = new AccountDirectory(engine.store);

  async function resources(username: string): Promise<ResourceView[]> {
    await engine.accountView(username); // 404 for an unknown account
    const history = await resourceHistory(engine.store, username);
    const calls = await callsAt(engine.store, writes, history.flatMap((r) => r.transitions.map((t) => t.position)));
    return history.map((r) => ({ ...r, transitions: r.transitions.map((t) => ({ ...t, call: calls.get(t.position) ?? null })) }));
  }

  return [
    {
      method: 'GET',
      path: ['accounts'],
      run: async () => {
        const usernames = await directory.usernames();
        const now = engine.clock.now();
        const day = limitingDayOf(now, engine.settings.limitingDay);
        const accounts = [];
        // One poll reads every account at one instant and one limiting day; nothing is written or guarded.
        for (const u of usernames) accounts.push({ ...(await accountFigures(engine, u, now, day)), recent_charges: directory.recentCharges(u) });
        return jsonResponse(200, { now, kind: clock.kind === 'manual' ? 'manual' : 'system', head: directory.head, accounts });
      },
    },
    {
      method: 'GET',
      path: ['writes'],
      run: async ({ query }) => {
        const after = wholeNumber(query.get('after'), 'after') ?? 0;
        const until = wholeNumber(query.get('until'), 'until');
        return jsonResponse(200, { writes: writes.between(after, until) });
      },
    },
    { method: 'GET', path: ['accounts', '*', 'resources'], run: async ({ params }) => jsonResponse(200, { resources: await resources(params[0]!) }) },
  ];
}

function wholeNumber(raw: string | null, name: string): number | undefined {
  if (raw === null || raw === '') return undefined;
  if (!/^\d+$/.test(raw) || !Number.isSafeInteger(Number(raw))) throw new DomainError(400, `${name} must be a whole number, 0 or more`);
  return Number(raw);
}

/**
 * The call whose write holds each event at the given positions: the log around them is read in as few
 * ranges as the positions allow, and grouped into writes by the same rule as the page's event log.
 */
async function callsAt(store: EventStore, writes: WriteLog, positions: number[]): Promise<Map<number, Transition['call']>> {
  const sorted = [...new Set(positions)].sort((a, b) => a - b);
  const ranges: { from: number; to: number }[] = [];
  for (const p of sorted) {
    const from = Math.max(0, p - WRITE_REACH);
    const last = ranges[ranges.length - 1];
    if (last && from <= last.to) last.to = p;
    else ranges.push({ from, to: p });
  }
  const calls = new Map<number, Transition['call']>();
  for (const range of ranges) {
    // A recorded write that began before the range is read whole, so its charge is seen.
    const known = writes.between(range.from, range.to);
    const from = known.length > 0 ? Math.min(range.from, known[0]![0] - 1) : range.from;
    for (const write of groupWrites(await store.readAll(from, range.to - from), known)) {
      const call = write.call ? { ...write.call, position: write.events[0]!.position } : null;
      for (const e of write.events) calls.set(e.position, call);
    }
  }
  return calls;
}
