// When an aggregate's state changes shape on purpose (its decider's kind renamed, `tasks.v1` to `tasks.v2`),
// the golden logs already kept must still fold, now to the new shape: `node --conditions=@sdp/source
// --import tsx packages/testing/test/golden/restate-golden-states.ts <version>` folds that log with today's
// deciders and adds, to `restated.json`, the state of each stream whose kind has none kept yet. Review the
// diff: it is the new shape of the same facts. States already kept are never rewritten.
import { writeFileSync } from 'node:fs';
import { PLATFORM_AGGREGATES, platformUpcasters } from '@sdp/core';
import { MemoryEventStore, replay } from '@sdp/core/kernel';
import { GOLDEN_DIR, appendGoldenLog, expectedState, goldenLogs } from '../../src/golden-logs.ts';

const name = process.argv[2];
const golden = goldenLogs().find((g) => g.name === name);
if (!golden) {
  console.error(`no golden log named ${name ?? '(none given)'}; kept: ${goldenLogs().map((g) => g.name).join(', ')}`);
  process.exit(1);
}
const store = new MemoryEventStore();
await appendGoldenLog(store, golden.events);
const report = await replay(store, [...PLATFORM_AGGREGATES], { upcasters: platformUpcasters() });
const restated = { ...golden.restated };
let added = 0;
for (const agg of report.aggregates.values()) {
  if (expectedState(golden, agg.stream, agg.kind)) continue;
  restated[agg.stream] = [...(restated[agg.stream] ?? []), { kind: agg.kind, version: agg.version, state: JSON.parse(JSON.stringify(agg.state)) }];
  added++;
  console.log(`${agg.stream}: restated as ${agg.kind}`);
}
writeFileSync(new URL(`${name}/restated.json`, GOLDEN_DIR), JSON.stringify(restated, null, 1) + '\n');
console.log(`${added} states added`);
