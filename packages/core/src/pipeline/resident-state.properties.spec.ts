/**
 * What one account can make the server keep (docs/limits.md, "What an account can make the server
 * keep"): whatever it sends, each call writes at most its cost × WRITE_CHARS_PER_CREDIT characters of
 * events, plus an idempotency record and a new filter definition, which have budgets of their own; so an
 * hour's allowance bounds what an hour of calls adds to the store and to the states reduced from it.
 */
import { describe, expect } from 'vitest';
import { fc, test } from '@fast-check/vitest';
import { MemoryEventStore } from '../kernel/memory-store.ts';
import { seededIds } from '../kernel/ports.ts';
import type { StreamAppend } from '../kernel/events.ts';
import type { EndpointId } from '../catalogue/endpoints.ts';
import { createEngine } from '../platform.ts';
import { IDEMPOTENT_BODY_MAX_CHARS } from '../idempotency/idempotency-keys.ts';
import { DEFAULT_PACKAGE } from '../accounting/package.ts';

/** The documented bound: characters of events a charged call writes per credit of its cost. */
const WRITE_CHARS_PER_CREDIT = 8 * 1024;
/** What a call writes for free (a pull page's mark), aside from the two budgets below. */
const FREE_CALL_WRITE_CHARS = 1024;
/** An idempotency record beyond its kept body: the key, fingerprint, status, headers and figures. */
const IDEMPOTENCY_RECORD_CHARS = IDEMPOTENT_BODY_MAX_CHARS + 2048;

const T0 = Date.parse('2026-05-01T10:00:00Z');
const creds = { username: 'mallory', apiKey: 'mallory-key-0001' };

/** A string of `n` characters (the shrinker works on `n`, not on the text). */
const text = (max: number) => fc.integer({ min: 0, max }).map((n) => 'x'.repeat(n));
/** Sizes a hostile tenant tries: small, near the bounds and over them. */
const big = fc.oneof(text(300), fc.constantFrom(32 * 1024 - 64, 32 * 1024 + 1, 60_000, 250_000).map((n) => 'y'.repeat(n)));

type Call = { endpoint: EndpointId; params: (ids: Known) => Record<string, unknown>; key?: string };
interface Known {
  hash: string;
  subscriptions: string[];
  sources: string[];
  identities: string[];
}
const pick = (list: string[], i: number): string => list.length === 0 ? 'f'.repeat(32) : list[i % list.length]!;

const callArb: fc.Arbitrary<Call> = fc.oneof(
  fc.record({ name: text(400), blob: big }).map(({ name, blob }) => ({
    endpoint: 'push.create' as const,
    params: (k: Known) => ({ name: name || 'n', output_type: 'pull', hash: k.hash, output_params: { format: 'json_meta', blob } }),
  })),
  fc.record({ i: fc.nat(), blob: big, name: text(400) }).map(({ i, blob, name }) => ({
    endpoint: 'push.update' as const,
    params: (k: Known) => ({ id: pick(k.subscriptions, i), output_params: { [`k${i % 7}`]: blob }, ...(name ? { name } : {}) }),
  })),
  fc.nat().map((i) => ({ endpoint: 'push.delete' as const, params: (k: Known) => ({ id: pick(k.subscriptions, i) }) })),
  fc.record({ p: big, r: big, name: text(400) }).map(({ p, r, name }) => ({
    endpoint: 'source.create' as const,
    params: () => ({ source_type: 'twitter_gnip', name: name || 'n', parameters: { p }, resources: [{ parameters: { mapping: 'gnip_1', r } }] }),
  })),
  fc.record({ i: fc.nat(), r: big }).map(({ i, r }) => ({
    endpoint: 'source.resource.add' as const,
    params: (k: Known) => ({ id: pick(k.sources, i), resources: [{ parameters: { mapping: 'gnip_1', r } }] }),
  })),
  fc.record({ label: text(400) }).map(({ label }) => ({ endpoint: 'account.identity.create' as const, params: () => ({ label: label || 'l' }) })),
  fc.record({ i: fc.nat(), service: text(80), token: text(5000) }).map(({ i, service, token }) => ({
    endpoint: 'account.identity.token.create' as const,
    params: (k: Known) => ({ identity_id: pick(k.identities, i), service: service || 's', token: token || 't' }),
  })),
  fc.record({ word: text(3000) }).map(({ word }) => ({ endpoint: 'core.compile' as const, params: () => ({ csdl: `interaction.content contains "${word}"` }) })),
  fc.record({ i: fc.nat(), key: fc.string({ minLength: 1, maxLength: 12 }) }).map(({ i, key }) => ({
    endpoint: 'push.pull' as const,
    params: (k: Known) => ({ id: pick(k.subscriptions, i) }),
    key,
  })),
);

describe('what one account can make the server keep', () => {
  test.prop([fc.array(callArb, { minLength: 1, maxLength: 40 })], { numRuns: Number(process.env.SDP_FUZZ_RUNS ?? 15) })(
    'each call writes at most cost × WRITE_CHARS_PER_CREDIT (+ an idempotency record and a new definition), so an hour of calls adds at most the allowance × that bound',
    async (calls) => {
      const memory = new MemoryEventStore();
      let written = 0;
      const appended: StreamAppend[][] = [];
      const store = new Proxy(memory, {
        get(target, prop, receiver) {
          if (prop === 'append') {
            return (appends: StreamAppend[]) => {
              appended.push(appends);
              return target.append(appends);
            };
          }
          const v = Reflect.get(target, prop, receiver);
          return typeof v === 'function' ? v.bind(target) : v;
        },
      });
      const engine = createEngine({ store, clock: { now: () => T0 }, ids: seededIds(5) });
      await engine.openAccount({ username: creds.username, api_key: creds.apiKey });
      const hash = ((await engine.call({ version: '1.5', endpoint: 'core.compile', credentials: creds, params: { csdl: 'interaction.content contains "coffee"' } })).body as { hash: string }).hash;
      const known: Known = { hash, subscriptions: [], sources: [], identities: [] };
      let charged = 0;
      let allowance = 0;
      for (const c of calls) {
        appended.length = 0;
        const answer = await engine.call({ version: '1.5', endpoint: c.endpoint, credentials: creds, params: c.params(known), ...(c.key !== undefined ? { idempotencyKey: c.key } : {}) });
        let chars = 0;
        let cost = 0;
        let definition = 0;
        let idempotency = 0;
        for (const appends of appended) {
          for (const a of appends) {
            for (const e of a.events) {
              const n = JSON.stringify(e).length + a.stream.length;
              if (e.type === 'CreditsCharged') cost += (e.data as { lines: { cost: number }[] }).lines[0]?.cost ?? 0;
              if (e.type === 'FilterCompiled') definition += n;
              else if (e.type === 'IdempotentCallRecorded') idempotency += n;
              else chars += n;
            }
          }
        }
        expect(chars, `${c.endpoint} answered ${answer.status} and wrote ${chars} characters for ${cost} credits`).toBeLessThanOrEqual(cost * WRITE_CHARS_PER_CREDIT + FREE_CALL_WRITE_CHARS);
        expect(idempotency).toBeLessThanOrEqual(IDEMPOTENCY_RECORD_CHARS);
        // A definition is written as compiled (the generated words are at most 3,000 characters), once.
        expect(definition).toBeLessThanOrEqual(3000 + 500);
        written += chars;
        charged += cost;
        allowance += FREE_CALL_WRITE_CHARS;
        const body = answer.body as { id?: string } | undefined;
        if (answer.status < 300 && body?.id) {
          if (c.endpoint === 'push.create') known.subscriptions.push(body.id);
          if (c.endpoint === 'source.create') known.sources.push(body.id);
          if (c.endpoint === 'account.identity.create') known.identities.push(body.id);
        }
      }
      // Within one hour: charges never pass the allowance, so neither does what they wrote.
      expect(charged).toBeLessThanOrEqual(DEFAULT_PACKAGE.credits_per_hour);
      expect(written).toBeLessThanOrEqual(DEFAULT_PACKAGE.credits_per_hour * WRITE_CHARS_PER_CREDIT + allowance);
    },
  );
});
