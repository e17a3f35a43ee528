/**
 * Scenario params may quote earlier answers and the call itself: `${source.body.id}` (a setup call's
 * answer), `${n}` (this actor's call number), `${now_s}` (Unix seconds), `${actor}`, `${account}`.
 * A string that is one placeholder keeps the quoted value's type.
 */
export type TemplateScope = Record<string, unknown>;

const PLACEHOLDER = /\$\{([A-Za-z0-9_.[\]-]+)\}/g;
const DYNAMIC = /\$\{(n|now_s|now)\}/;

export function hasDynamicPlaceholders(value: unknown): boolean {
  if (typeof value === 'string') return DYNAMIC.test(value);
  if (Array.isArray(value)) return value.some(hasDynamicPlaceholders);
  if (value && typeof value === 'object') return Object.values(value).some(hasDynamicPlaceholders);
  return false;
}

export function fillTemplate(value: unknown, scope: TemplateScope): unknown {
  if (typeof value === 'string') {
    const whole = /^\$\{([A-Za-z0-9_.[\]-]+)\}$/.exec(value);
    if (whole) {
      const found = lookup(scope, whole[1]!);
      return found === undefined ? value : found;
    }
    return value.replace(PLACEHOLDER, (m, path: string) => {
      const found = lookup(scope, path);
      return found === undefined ? m : typeof found === 'string' ? found : JSON.stringify(found);
    });
  }
  if (Array.isArray(value)) return value.map((v) => fillTemplate(v, scope));
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = fillTemplate(v, scope);
    return out;
  }
  return value;
}

function lookup(scope: TemplateScope, path: string): unknown {
  let node: unknown = scope;
  for (const part of path.replace(/\[(\d+)\]/g, '.$1').split('.')) {
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<string, unknown>)[part];
  }
  return node;
}

/**
 * A deep copy of `value`, frozen. A client's parameters without `${n}`, `${now_s}` or `${now}` are the
 * same object on every call; frozen, the engine reads them through the endpoint's schema once and
 * answers later calls that reading (`readParams`), as it would any caller's frozen parameters. A copy,
 * so that what it quotes of setup answers stays the answers' own.
 */
export function frozenCopy<T>(value: T): T {
  if (Array.isArray(value)) return Object.freeze(value.map(frozenCopy)) as T;
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = frozenCopy(v);
    return Object.freeze(out) as T;
  }
  return value;
}
