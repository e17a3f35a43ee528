/**
 * A call's parameters as the request journal lists them: within a budget of characters (as JSON would
 * spell them, near enough), and with what looks like a credential masked: the stream's clients send
 * `api_key` in the query, and a push destination's parameters carry its own passwords and keys.
 */

/** Keys whose values are never shown, at any depth. */
const CREDENTIAL = /(^|_)(api_?key|apikey|password|passwd|secret|token)($|_)|^(access_key|authorization|auth|credentials?)$/i;
export const MASK = '[masked]';

/** Past the budget by at most this: one number or literal (`-1.2345678901234567e-300`) that did not fit. */
export const BUDGET_SLACK = 24;

/**
 * `value` copied within `budget` characters, counted as JSON spells it but for escapes (a string is its
 * length and two quotes), at most `BUDGET_SLACK` over; `cut` when something did not fit. The work is
 * bounded by the budget too, whatever the size of `value`: it stops at the first thing that does not fit.
 */
export function shownParams(value: Record<string, unknown>, budget: number): { params: Record<string, unknown>; cut: boolean } {
  const walk = new Walk(budget);
  return { params: walk.object(value), cut: walk.cut };
}

class Walk {
  cut = false;
  constructor(private left: number) {}

  value(v: unknown): unknown {
    if (typeof v === 'string') return this.text(v);
    if (typeof v === 'number' || typeof v === 'boolean' || v === null) {
      this.left -= String(v).length;
      return v;
    }
    if (Array.isArray(v)) return this.array(v);
    if (typeof v === 'object') return this.object(v as Record<string, unknown>);
    // undefined, functions: nothing JSON would keep.
    this.left -= 4;
    return null;
  }

  text(v: string): string {
    const room = Math.max(0, this.left - 2);
    this.left -= Math.min(v.length, room) + 2;
    if (v.length <= room) return v;
    this.cut = true;
    return v.slice(0, room);
  }

  array(v: readonly unknown[]): unknown[] {
    const out: unknown[] = [];
    this.left -= 2;
    for (const item of v) {
      const comma = out.length === 0 ? 0 : 1;
      // Room for a comma and the shortest value.
      if (this.left < comma + 1) {
        this.cut = true;
        break;
      }
      this.left -= comma;
      out.push(this.value(item));
    }
    return out;
  }

  object(v: Record<string, unknown>): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    this.left -= 2;
    let first = true;
    for (const key in v) {
      if (!Object.hasOwn(v, key)) continue;
      const cost = key.length + 3 + (first ? 0 : 1);
      // Room for the key, its quotes, colon and comma, and the shortest value.
      if (this.left < cost + 1) {
        this.cut = true;
        break;
      }
      first = false;
      this.left -= cost;
      // A key of its own, never the prototype's setter (a body may name `__proto__`).
      Object.defineProperty(out, key, { value: CREDENTIAL.test(key) ? this.text(MASK) : this.value(v[key]), enumerable: true, writable: true, configurable: true });
    }
    return out;
  }
}
