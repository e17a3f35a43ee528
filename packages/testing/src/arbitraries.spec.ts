import { describe, expect } from 'vitest';
import { fc, test } from '@fast-check/vitest';
import { ManualClock } from '@sdp/clock';
import { compileFilter, createEngine, endpointById, readPackageFields } from '@sdp/core';
import { MemoryEventStore, seededIds } from '@sdp/core/kernel';
import { accountArb, callArb, clockMoveArb, filterTextArb, packageArb } from './arbitraries.ts';

describe('arbitraries', () => {
  test.prop([packageArb()])('every generated package is one an operator may set, read back unchanged', (pkg) => {
    expect(readPackageFields(pkg)).toEqual(pkg);
  });

  test.prop([accountArb()], { numRuns: 30 })('every generated account opens on an engine', async (account) => {
    const engine = createEngine({ store: new MemoryEventStore(), clock: new ManualClock(0), ids: seededIds(1) });
    const opened = await engine.openAccount(account);
    expect(opened).toEqual({ username: account.username, api_key: account.api_key, package: account.package });
  });

  test.prop([filterTextArb])('every generated filter text compiles', (text) => {
    expect(() => compileFilter(text)).not.toThrow();
  });

  test.prop([callArb()])('generated calls name catalogue endpoints drawing from the general or analyze allowance', (call) => {
    expect(['general', 'analyze']).toContain(endpointById(call.endpoint).allowance);
  });

  test.prop([fc.array(clockMoveArb, { maxLength: 20 })])('clock moves never go backwards', async (moves) => {
    const clock = new ManualClock(0);
    let expected = 0;
    for (const ms of moves) {
      expected += ms;
      await clock.advance(ms);
    }
    expect(clock.now()).toBe(expected);
  });
});
