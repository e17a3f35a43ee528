import { describe, expect, it } from 'vitest';
import { fc, test } from '@fast-check/vitest';
import { ActionSplitter, readAction } from './action-splitter.ts';

describe('the duplex body: concatenated JSON actions', () => {
  it('reads objects written one per chunk with no separator, after a first "\\n" chunk', () => {
    const s = new ActionSplitter();
    expect(s.push('\n')).toEqual({ objects: [], junk: false });
    expect(s.push('{"action":"subscribe","hash":"a"}{"action":"stop"}').objects).toEqual(['{"action":"subscribe","hash":"a"}', '{"action":"stop"}']);
  });

  it('reports junk between objects and goes on with the next object', () => {
    const s = new ActionSplitter();
    const r = s.push('nonsense {"action":"stop"}');
    expect(r).toEqual({ objects: ['{"action":"stop"}'], junk: true });
  });

  it('braces inside strings do not end an object', () => {
    expect(new ActionSplitter().push('{"action":"subscribe","hash":"}{\\"x"}').objects).toEqual(['{"action":"subscribe","hash":"}{\\"x"}']);
  });

  it('drops an object past its size bound and reports it', () => {
    const s = new ActionSplitter(100);
    const r = s.push(`{"hash":"${'a'.repeat(200)}"}{"action":"stop"}`);
    expect(r.junk).toBe(true);
    expect(r.objects).toEqual(['{"action":"stop"}']);
  });

  test.prop([fc.array(fc.record({ action: fc.constantFrom('subscribe', 'unsubscribe'), hash: fc.string({ maxLength: 40 }) }), { maxLength: 20 }), fc.array(fc.nat(), { maxLength: 30 })])(
    'however the body is cut into chunks, the same objects come out in order',
    (actions, cuts) => {
      const text = actions.map((a) => JSON.stringify(a)).join('');
      const at = [...new Set(cuts.map((c) => (text.length === 0 ? 0 : c % text.length)))].sort((a, b) => a - b);
      const s = new ActionSplitter();
      const out: string[] = [];
      let from = 0;
      for (const cut of [...at, text.length]) {
        out.push(...s.push(text.slice(from, cut)).objects);
        from = cut;
      }
      expect(out.map((o) => JSON.parse(o))).toEqual(actions);
    },
  );
});

describe('reading an action', () => {
  it('subscribe, unsubscribe and stop; anything else is invalid', () => {
    expect(readAction('{"action":"subscribe","hash":" abc "}')).toEqual({ action: 'subscribe', hash: 'abc' });
    expect(readAction(' { "action" : "unsubscribe" , "hash": "h"}')).toEqual({ action: 'unsubscribe', hash: 'h' });
    expect(readAction('{"action":"stop"}')).toEqual({ action: 'stop' });
    expect(readAction('{"action":"dance"}')).toEqual({ invalid: expect.stringMatching(/subscribe, unsubscribe or stop/) });
    expect(readAction('[1]')).toEqual({ invalid: 'not a JSON object' });
    expect(readAction('{"action":"subscribe"}')).toEqual({ invalid: 'hash must be a hash' });
    expect(readAction('{')).toEqual({ invalid: 'not JSON' });
  });
});
