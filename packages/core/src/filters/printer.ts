import type { Argument, Condition, Definition, Expr, TagRule } from './ast.ts';

/**
 * The canonical form: lower-case keywords, canonical operator names, single spaces, no comments, the
 * fewest brackets precedence needs, list items trimmed and joined by bare commas. The hash is taken of
 * this text, so spellings that mean the same tree share a hash.
 */
export function printDefinition(d: Definition): string {
  const parts = d.tags.map(printTagRule);
  if (d.form === 'return') parts.push(`return {${printExpr(d.body!)}}`);
  else if (d.form === 'plain') parts.push(printExpr(d.body!));
  return parts.join('\n');
}

function printTagRule(r: TagRule): string {
  if (r.type === 'include') return `tags "${r.hash}"`;
  const head = ['tag', ...r.namespace].join('.');
  const label = r.type === 'tag' ? quote(r.name) : printNumber(r.score);
  return `${head} ${label} {${printExpr(r.body)}}`;
}

export function printExpr(e: Expr): string {
  switch (e.type) {
    case 'or':
      return e.items.map(printExpr).join(' or ');
    case 'and':
      return e.items.map((x) => (x.type === 'or' ? `(${printExpr(x)})` : printExpr(x))).join(' and ');
    case 'not':
      return `not ${e.item.type === 'or' || e.item.type === 'and' ? `(${printExpr(e.item)})` : printExpr(e.item)}`;
    case 'stream':
      return `stream "${e.hash}"`;
    case 'cond':
      return printCondition(e);
  }
}

function printCondition(c: Condition): string {
  let s = c.target + (c.cs ? ' cs ' : ' ') + c.op;
  if (c.switches.length > 0) s += ` [${c.switches.map((w) => `${w.name}(${quoteIfNeeded(w.arg)})`).join(',')}]`;
  if (c.arg) s += ` ${printArgument(c.arg)}`;
  return s;
}

function printArgument(a: Argument): string {
  switch (a.kind) {
    case 'string':
      return quote(a.value);
    case 'number':
      return printNumber(a.value);
    case 'list':
      return quote(a.items.map(escapeItem).join(','));
    case 'ints':
      return `[${a.values.map(printNumber).join(',')}]`;
    case 'near':
      return quote(`${a.words.map(escapeItem).join(',')}:${a.distance}`);
    case 'geo':
      return quote(a.points.map(([lat, lon]) => `${printNumber(lat)},${printNumber(lon)}`).join(':') + (a.radius !== undefined ? `:${printNumber(a.radius)}` : ''));
  }
}

function printNumber(n: number): string {
  return Object.is(n, -0) ? '0' : String(n);
}

const escapeItem = (s: string): string => s.replace(/,/g, '\\,');

function quote(s: string): string {
  return `"${s.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

function quoteIfNeeded(s: string): string {
  return /^[\p{L}\d_]+$/u.test(s) ? s : quote(s);
}
