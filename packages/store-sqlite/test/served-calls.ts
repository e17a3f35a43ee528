import type { HandlerTable } from '@sdp/core';
import type { Decider, DomainEvent } from '@sdp/core/kernel';

/**
 * What the crash test serves: `core.validate` records the caller's call id in `calls:{username}`, in the
 * same atomic append as the call's charge, so the log says exactly which calls were served.
 */
export type CallServed = DomainEvent<'CallServed', { call: string }>;

export const servedCallsDecider: Decider<number, { type: 'ServeCall'; call: string }, CallServed> = {
  name: 'crash-test.calls',
  initialState: () => 0,
  decide: (command) => [{ type: 'CallServed', data: { call: command.call } }],
  evolve: (served) => served + 1,
};

export const callsStream = (username: string): string => `calls:${username}`;

export const crashHandlers: HandlerTable = {
  'core.validate': async (ctx) => {
    const call = ctx.params.requireString('call');
    await ctx.uow.execute(servedCallsDecider, callsStream(ctx.account.username), { type: 'ServeCall', call });
    return { body: { call } };
  },
};

/** All calls happen at one instant, so every charge falls in one credit window. */
export const CRASH_TEST_TIME = Date.parse('2026-03-01T10:30:00Z');
export const CRASH_ACCOUNTS = [
  { username: 'roomy', api_key: 'roomy-key-0000000000000000000001', package: { credits_per_hour: 1_000_000_000 } },
  { username: 'tight', api_key: 'tight-key-0000000000000000000002', package: { credits_per_hour: 1500 } },
];
