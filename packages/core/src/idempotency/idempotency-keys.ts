import { sha256 } from '@noble/hashes/sha2';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils';
import type { Decider, DomainEvent } from '../kernel/decider.ts';
import type { ApiCall, CallAnswer } from '../handling/handler.ts';

/**
 * Idempotency keys (server.md, Toolbox): a POST, PUT or DELETE call sent with `Idempotency-Key` is
 * executed and charged once per account and key. The answer is recorded in the same atomic write as the
 * call's charge and effects, under the expected version of the account's key stream, so two writers
 * racing with one key (two server processes on PostgreSQL) cannot both execute: the loser retries, finds
 * the record and replays it.
 */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
export const IDEMPOTENCY_KEY_MAX = 255;

export const idempotencyStream = (username: string): string => `idempotency:${username}`;

export interface IdempotentRecord {
  fingerprint: string;
  at: number;
  answer: CallAnswer;
}

/** Keys used within the last 24 hours of the newest record's time (older ones are forgotten as the stream grows). */
export interface IdempotencyKeys {
  byKey: Record<string, IdempotentRecord>;
}

export type IdempotencyEvent = DomainEvent<'IdempotentCallRecorded', { key: string } & IdempotentRecord>;
export interface RecordIdempotentCall {
  type: 'RecordIdempotentCall';
  key: string;
  fingerprint: string;
  at: number;
  answer: CallAnswer;
}

export const idempotencyDecider: Decider<IdempotencyKeys, RecordIdempotentCall, IdempotencyEvent> = {
  name: 'idempotency.v1',
  initialState: () => ({ byKey: {} }),
  decide(command, state) {
    // A live record is replayed before anything is decided; recording over one would be a bug upstream.
    if (heldAt(state, command.key, command.at)) throw new Error(`idempotency key ${command.key} is already recorded`);
    const { key, fingerprint, at, answer } = command;
    return [{ type: 'IdempotentCallRecorded', data: { key, fingerprint, at, answer } }];
  },
  evolve(state, event) {
    const d = event.data;
    const byKey: Record<string, IdempotentRecord> = {};
    for (const [k, r] of Object.entries(state.byKey)) if (r.at + IDEMPOTENCY_TTL_MS > d.at) byKey[k] = r;
    byKey[d.key] = { fingerprint: d.fingerprint, at: d.at, answer: d.answer };
    return { byKey };
  },
};

/** The record a key holds at `now`, if it has not expired. */
export function heldAt(state: IdempotencyKeys, key: string, now: number): IdempotentRecord | undefined {
  const r = state.byKey[key];
  return r && r.at + IDEMPOTENCY_TTL_MS > now ? r : undefined;
}

/** JSON with sorted keys, so two encodings of the same parameters give one fingerprint. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.keys(value)
      .sort()
      .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** What "the same parameters" means: the endpoint, the version and every parameter and raw body sent. */
export function callFingerprint(call: ApiCall): string {
  return bytesToHex(sha256(utf8ToBytes(canonical({ v: call.version, e: call.endpoint, p: call.params ?? {}, b: call.body ?? null }))));
}

/** A stored answer as sent again: the same status, body and headers, marked as a replay. */
export function replayOf(record: IdempotentRecord): CallAnswer {
  const a = record.answer;
  return { ...a, headers: { ...a.headers, 'Idempotent-Replayed': 'true' } };
}
