import { describe, expect, it } from 'vitest';
import { fc, test } from '@fast-check/vitest';
import { Engine, PLATFORM_HANDLERS, createEngine, type ApiCall, type CallAnswer, type Endpoint } from '@sdp/core';
import { AdvanceClockCommand, ApiCallCommand, InvariantBroken, StreamChargeCommand, TaskBurstCommand, engineCommands, runEngineModel } from './engine-model.ts';

const tight = { credits_per_hour: 100, analyze_credits_per_hour: 60 };

describe('the engine against the model of its published limits', () => {
  test.prop([engineCommands({ endpoints: ['core.validate', 'core.compile', 'push.get', 'push.pull', 'insight.analyze', 'historics.prepare'] })], { numRuns: 40 })(
    'credits never negative, no over-admission, exact remaining, windows reset on the minute mark, nothing charged on refusal',
    (commands) => runEngineModel({ package: tight }, commands),
  );

  it('agrees with the engine that a free stream charge opens the window (the counterexample that once broke it)', async () => {
    await runEngineModel({ package: tight }, [new StreamChargeCommand(0), new AdvanceClockCommand(23_000), new StreamChargeCommand(0)]);
  });

  test.prop([engineCommands({ maxCommands: 25 })], { numRuns: 25 })('the same invariants hold for every general and analyze endpoint at every version', (commands) =>
    runEngineModel({ package: { credits_per_hour: 300, analyze_credits_per_hour: 100 } }, commands),
  );

  test.prop([fc.array(fc.integer({ min: 1, max: 1_100 }), { minLength: 1, maxLength: 2 }), fc.array(fc.integer({ min: 0, max: 600_000 }), { minLength: 2, maxLength: 2 })], { numRuns: 4 })(
    'task queues never over 1,000, and a full queue charges nothing',
    (bursts, waits) => runEngineModel({ package: tight, tasks: true }, bursts.flatMap((n, i) => [new TaskBurstCommand(n), new AdvanceClockCommand(waits[i]!)])),
  );

  it('a burst of 1,005 tasks at one instant: 1,000 queued, 5 refused', async () => {
    const burst = new TaskBurstCommand(1_005);
    await runEngineModel({ package: tight, tasks: true }, [burst]);
    expect([burst.accepted, burst.refused]).toEqual([1000, 5]);
  });

  it('catches an engine that misreports what remains (the model can fail)', async () => {
    class OffByOne extends Engine {
      override async call(call: ApiCall): Promise<CallAnswer> {
        const a = await super.call(call);
        return a.rate ? { ...a, rate: { ...a.rate, remaining: a.rate.remaining + 1 } } : a;
      }
    }
    const broken = runEngineModel(
      { package: tight, engine: (ports) => new OffByOne({ ...ports, handlers: createEngine(ports)['handlers' as never] }) },
      [new ApiCallCommand({ version: '1.5', endpoint: 'core.validate', params: { csdl: 'fb.content contains "x"' } })],
    );
    await expect(broken).rejects.toThrow(InvariantBroken);
    await expect(broken).rejects.toThrow(/exact remaining/);
  });

  it('catches an engine that lets the stream product overdraw', async () => {
    class Overdraw extends Engine {
      override call(call: ApiCall, endpoint?: Endpoint): Promise<CallAnswer> {
        if (call.endpoint !== 'stream.charge') return super.call(call, endpoint);
        return super.call({ ...call, params: { cost: Math.min(call.params!.cost as number, 1) } }, endpoint);
      }
    }
    const run = runEngineModel({ package: tight, engine: (ports) => new Overdraw({ ...ports, handlers: PLATFORM_HANDLERS }) }, [new StreamChargeCommand(60), new StreamChargeCommand(60)]);
    await expect(run).rejects.toThrow(/^exact remaining: stream charge of 60 at 2026-01-05T08:05:37.000Z: expected 40 of 100, engine said 99$/);
  });
});
