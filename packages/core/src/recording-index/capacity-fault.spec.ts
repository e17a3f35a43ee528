import { describe, it } from 'vitest';
import { deciderSpec } from '@sdp/testing';
import { dailyCapacityDecider, type CapacityEvent, type OfferedInteraction } from './capacity.ts';

const spec = () => deciderSpec(dailyCapacityDecider);
const offered = (recording: string): OfferedInteraction => ({ at: 1, interaction: { fb: { content: 'x' } } as never, matches: [{ recording, tags: [] }] });

describe('daily capacity: the operator reaches it (a semantic fault)', () => {
  it('after CapacityReached every match that day is refused, and nothing is stored for it', () => {
    const reached: CapacityEvent = { type: 'CapacityReached', data: { day: 'd', used: 5 } };
    spec().given([]).when({ type: 'ReachCapacity', day: 'd', accountLimit: 5 }).then([reached]);
    spec().given([reached]).when({ type: 'RecordInteractions', day: 'd', accountLimit: 5, items: [offered('r1')] }).then([
      { type: 'InteractionsRecorded', data: { day: 'd', items: [], kept: {}, refused: { r1: 1 } } },
    ]);
  });

  it('reaching a capacity already reached decides nothing', () => {
    spec().given([{ type: 'CapacityReached', data: { day: 'd', used: 5 } }]).when({ type: 'ReachCapacity', day: 'd', accountLimit: 5 }).then([]);
  });
});
