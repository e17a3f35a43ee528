import { sha256 } from '@noble/hashes/sha2';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils';
import type { Decider, DomainEvent } from '../kernel/decider.ts';
import type { ApiCall, CallAnswer } from '../handling/handler.ts';
import { checkHolding } from '../accounting/holding-limits.ts';

/**
 * Idempotency keys (docs/contract.md#toolbox): a POST, PUT or DELETE call sent with `Idempotency-Key` is
 * executed and charged once per account and key. The answer is recorded in the same atomic write as the
 * call's charge and effects, under the expected version of the account's key stream, so two writers
 * racing with one key (two server processes on PostgreSQL) cannot both execute: the loser retries, finds
 * the record and replays it.
 */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
export const IDEMPOTENCY_KEY_MAX = 255;
/**
 * The largest answer body (characters of JSON) kept to be sent again. A bigger one (a `/pull` page of
 * megabytes) is recorded without its body: a free call must not make the server keep megabytes per key.
 * Its retry is told that the call ran and its answer was not kept (`replayOf`), and is not run again.
 */
export const IDEMPOTENT_BODY_MAX_CHARS = 16 * 1024;

export const idempotencyStream = (username: string): string => `idempotency:${username}`;

export interface IdempotentRecord {
  fingerprint: string;
  at: number;
  answer: CallAnswer;
  /** Set when the answer's body was over `IDEMPOTENT_BODY_MAX_CHARS` and not kept: its length. */
  bodyChars?: number;
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
  /** The package's `idempotency_keys`: live keys the account may hold. */
  holdLimit: number;
}

export const idempotencyDecider: Decider<IdempotencyKeys, RecordIdempotentCall, IdempotencyEvent> = {
  name: 'idempotency.v1',
  initialState: () => ({ byKey: {} }),
  decide(command, state) {
    // A live record is replayed before anything is decided; recording over one would be a bug upstream.
    if (heldAt(state, command.key, command.at)) throw new Error(`idempotency key ${command.key} is already recorded`);
    // Admitted before the call ran (`admitKey`); a refusal here would come after its effects.
    if (liveKeys(state, command.at) >= command.holdLimit) throw new Error(`idempotency key ${command.key} was not admitted`);
    const { key, fingerprint, at, answer } = command;
    const chars = answer.body === undefined ? 0 : (JSON.stringify(answer.body)?.length ?? 0);
    if (chars <= IDEMPOTENT_BODY_MAX_CHARS) return [{ type: 'IdempotentCallRecorded', data: { key, fingerprint, at, answer } }];
    const { body: _dropped, ...kept } = answer;
    return [{ type: 'IdempotentCallRecorded', data: { key, fingerprint, at, answer: kept, bodyChars: chars } }];
  },
  evolve(state, event) {
    const d = event.data;
    const byKey: Record<string, IdempotentRecord> = {};
    for (const [k, r] of Object.entries(state.byKey)) if (r.at + IDEMPOTENCY_TTL_MS > d.at) byKey[k] = r;
    byKey[d.key] = { fingerprint: d.fingerprint, at: d.at, answer: d.answer, ...(d.bodyChars !== undefined ? { bodyChars: d.bodyChars } : {}) };
    return { byKey };
  },
};

/** The record a key holds at `now`, if it has not expired. */
export function heldAt(state: IdempotencyKeys, key: string, now: number): IdempotentRecord | undefined {
  const r = state.byKey[key];
  return r && r.at + IDEMPOTENCY_TTL_MS > now ? r : undefined;
}

/** Keys the account holds at `now`: recorded within the last 24 hours. */
export function liveKeys(state: IdempotencyKeys, now: number): number {
  let live = 0;
  for (const k in state.byKey) if (state.byKey[k]!.at + IDEMPOTENCY_TTL_MS > now) live++;
  return live;
}

/**
 * Whether a new key may be recorded at `now`: refused (403 naming `idempotency_keys`) before the call
 * is charged or run, when the account already holds its package's number of live keys.
 */
export function admitKey(state: IdempotencyKeys, now: number, limit: number): void {
  checkHolding('idempotency_keys', liveKeys(state, now), limit);
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

/**
 * A stored answer as sent again: the same status, body and headers, marked as a replay. An answer whose
 * body was too big to keep answers 409: the call ran once and is not run again, and the client is told
 * why it cannot have the body a second time.
 */
export function replayOf(record: IdempotentRecord, key: string): CallAnswer {
  const a = record.answer;
  if (record.bodyChars === undefined) return { ...a, headers: { ...a.headers, 'Idempotent-Replayed': 'true' } };
  return {
    status: 409,
    body: {
      error:
        `The call with Idempotency-Key ${key} ran at ${new Date(record.at).toISOString()} and answered ${a.status}; its answer ` +
        `(${record.bodyChars} characters) is over the ${IDEMPOTENT_BODY_MAX_CHARS} kept for replays, so it cannot be sent again`,
      replayed_status: a.status,
    },
    ...(a.rate ? { rate: a.rate } : {}),
    headers: { 'Idempotent-Replayed': 'true' },
  };
}
