// Writes the golden log of this version: `node --conditions=@sdp/source --import tsx
// packages/testing/test/golden/write-golden-log.ts [name]` (name: the testing package's version by
// default). A golden log is never rewritten: a version whose events changed gets a folder of its own,
// and the logs of older versions stay, since every later version must still fold them the same.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { PLATFORM_AGGREGATES, PLATFORM_EVENT_TYPES, platformUpcasters } from '@sdp/core';
import { MemoryEventStore, replay } from '@sdp/core/kernel';
import { GOLDEN_DIR, eventLine, type GoldenState } from '../../src/golden-logs.ts';
import { runGoldenSession } from './golden-session.ts';

const name = process.argv[2] ?? (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
const dir = new URL(`${name}/`, GOLDEN_DIR);
if (existsSync(dir)) {
  console.error(`${dir.pathname} exists: golden logs are never rewritten (name a new version)`);
  process.exit(1);
}

const store = new MemoryEventStore();
const { surprises } = await runGoldenSession(store);
if (surprises.length > 0) {
  console.error(`the session did not go as scripted:\n${surprises.join('\n')}`);
  process.exit(1);
}
const events = await store.readAll();
const written = new Set(events.map((e) => e.type));
const missing = PLATFORM_EVENT_TYPES.filter((t) => !written.has(t));
if (missing.length > 0) {
  console.error(`the session wrote no ${missing.join(', ')}: extend golden-session.ts`);
  process.exit(1);
}
const report = await replay(store, [...PLATFORM_AGGREGATES], { upcasters: platformUpcasters() });
if (report.unclaimed > 0) {
  console.error(`${report.unclaimed} events belong to no aggregate of PLATFORM_AGGREGATES`);
  process.exit(1);
}
const states: Record<string, GoldenState> = {};
for (const agg of [...report.aggregates.values()].sort((a, b) => a.stream.localeCompare(b.stream))) {
  if (!plainJson(agg.state)) throw new Error(`${agg.stream} folds to a state JSON cannot hold (a Map, Set, Date...): the fixture could not say what it is`);
  states[agg.stream] = { kind: agg.kind, version: agg.version, state: agg.state };
}
mkdirSync(dir, { recursive: true });
writeFileSync(new URL('events.ndjson', dir), events.map(eventLine).join('\n') + '\n');
writeFileSync(new URL('states.json', dir), JSON.stringify(states, null, 1) + '\n');
console.log(`${dir.pathname}: ${events.length} events of ${written.size} types, ${Object.keys(states).length} aggregates`);

function plainJson(value: unknown): boolean {
  if (value === null || ['string', 'number', 'boolean', 'undefined'].includes(typeof value)) return typeof value !== 'number' || Number.isFinite(value);
  if (Array.isArray(value)) return value.every(plainJson);
  if (typeof value !== 'object' || ![Object.prototype, null].includes(Object.getPrototypeOf(value))) return false;
  return Object.values(value).every(plainJson);
}
