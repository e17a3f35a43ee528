import { describe, expect, it } from 'vitest';
import { creditsStream } from './accounting/credit-window.ts';
import { accountStream } from './accounting/account.ts';
import { definitionBudgetStream } from './filters/definition-budget.ts';
import { filterStream } from './filters/filter-registry.ts';
import { capacityStream } from './recording-index/capacity.ts';
import { PLATFORM_AGGREGATES } from './platform-events.ts';
import { RESOURCE_STREAMS, accountOfStream, asPlatformEvent } from './platform-log.ts';

describe("reading the platform's log from outside the core", () => {
  it("finds the account of every account stream the aggregates build, usernames with colons included", () => {
    for (const username of ['ada', 'a:b', 'x-2026-03-02', 'ünï']) {
      expect(accountOfStream(accountStream(username))).toBe(username);
      expect(accountOfStream(creditsStream(username))).toBe(username);
      expect(accountOfStream(capacityStream(username, '2026-03-02'))).toBe(username);
      expect(accountOfStream(definitionBudgetStream(username, '2026-03-02'))).toBe(username);
      for (const stream of Object.values(RESOURCE_STREAMS)) expect(accountOfStream(stream(username))).toBe(username);
    }
  });

  it('answers no account for a shared stream, a stream of no aggregate, or a day stream without its day', () => {
    expect(accountOfStream(filterStream('abc'))).toBeUndefined();
    expect(accountOfStream('elsewhere:ada')).toBeUndefined();
    expect(accountOfStream('capacity:ada')).toBeUndefined();
  });

  it('names an aggregate for every resource stream', () => {
    const prefixes = PLATFORM_AGGREGATES.map((a) => a.prefix);
    for (const stream of Object.values(RESOURCE_STREAMS)) expect(prefixes.some((p) => stream('u').startsWith(p))).toBe(true);
  });

  it('types a platform event by its type and leaves an embedder\'s own events out', () => {
    const base = { position: 1, stream: creditsStream('ada'), version: 1, id: 'e1', time: 0, schemaVersion: 1 };
    const e = asPlatformEvent({ ...base, type: 'CreditsCharged', data: { at: 0, endpoint: 'core.validate', lines: [{ key: 'general', cost: 1, start: 0 }] } });
    expect(e?.type === 'CreditsCharged' && e.data.lines[0]!.cost).toBe(1);
    expect(asPlatformEvent({ ...base, type: 'SomethingOfMine', data: {} })).toBeUndefined();
  });
});
