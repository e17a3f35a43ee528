import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { accountOfHead, ownerOf } from './account-router.ts';

const head = (lines: string[]): Buffer => Buffer.from(lines.join('\r\n') + '\r\n\r\n', 'latin1');

describe('accountOfHead: whose calls a connection carries, read as the API reads credentials', () => {
  it('reads the raw Authorization pair, the Auth header and HTTP Basic', () => {
    expect(accountOfHead(head(['POST /v1.5/validate HTTP/1.1', 'Host: x', 'Authorization: alice:key-0001']))).toBe('alice');
    expect(accountOfHead(head(['GET /v1.3/usage HTTP/1.1', 'auth: bob:key-0002']))).toBe('bob');
    const basic = Buffer.from('carol:key-0003').toString('base64');
    expect(accountOfHead(head(['GET /v1.6/usage HTTP/1.1', `Authorization: Basic ${basic}`]))).toBe('carol');
  });

  it("reads the stream's username in the query, and prefers a header", () => {
    expect(accountOfHead(head(['GET /multi?username=dave&api_key=k HTTP/1.1', 'Upgrade: websocket']))).toBe('dave');
    expect(accountOfHead(head(['GET /0123?username=dave&api_key=k HTTP/1.1', 'Authorization: erin:key-0005']))).toBe('erin');
  });

  it('names nobody for a head without credentials, an operator token, a bad request line or no head yet', () => {
    expect(accountOfHead(head(['GET /docs HTTP/1.1', 'Host: x']))).toBeUndefined();
    expect(accountOfHead(head(['GET /_admin/attempts HTTP/1.1', 'Authorization: Bearer token']))).toBeUndefined();
    expect(accountOfHead(Buffer.from('\u0016\u0003\u0001 a TLS hello'))).toBeUndefined();
    expect(accountOfHead(Buffer.from('POST /v1.5/validate HTTP/1.1\r\nAuthoriza'))).toBeUndefined();
  });

  it('reads a head cut before its end (the first 16 KiB of a long one) as far as it goes', () => {
    expect(accountOfHead(Buffer.from('POST /v1.5/validate HTTP/1.1\r\nAuthorization: frank:key-0006\r\nX-Long: aaaa'))).toBe('frank');
  });
});

const slotsArb = fc.uniqueArray(fc.integer({ min: 0, max: 63 }), { minLength: 1, maxLength: 16 });
const accountArb = fc.string({ minLength: 1, maxLength: 24 });

describe('ownerOf: one worker for each account', () => {
  test.prop([accountArb, slotsArb])('the owner is one of the live slots, whatever their order', (account, slots) => {
    const owner = ownerOf(account, slots);
    expect(slots).toContain(owner);
    expect(ownerOf(account, [...slots].reverse())).toBe(owner);
  });

  test.prop([accountArb, slotsArb, fc.nat()])('a slot leaving moves only the accounts it owned', (account, slots, k) => {
    const owner = ownerOf(account, slots)!;
    const gone = slots[k % slots.length]!;
    const left = slots.filter((s) => s !== gone);
    if (left.length === 0) return;
    if (gone !== owner) expect(ownerOf(account, left)).toBe(owner);
    else expect(left).toContain(ownerOf(account, left));
  });

  it('spreads accounts over the slots', () => {
    const counts = new Map<number, number>();
    for (let i = 0; i < 4000; i++) {
      const o = ownerOf(`user${i}`, [0, 1, 2, 3])!;
      counts.set(o, (counts.get(o) ?? 0) + 1);
    }
    for (const slot of [0, 1, 2, 3]) expect(counts.get(slot)).toBeGreaterThan(800);
  });

  it('names no owner when no worker is ready', () => {
    expect(ownerOf('alice', [])).toBeUndefined();
  });
});
