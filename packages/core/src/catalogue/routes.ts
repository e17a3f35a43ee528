import { ENDPOINTS, type Endpoint, type Method } from './endpoints.ts';
import { VERSIONS, atLeast, type VersionId } from './versions.ts';

/** What a path resolves to: every endpoint at that path (one per method set) and the path parameters. */
export interface RouteMatch {
  endpoints: Endpoint[];
  params: Record<string, string>;
}

interface ParamEdge {
  name: string;
  /** Words the parameter is limited to; constrained edges are tried before free ones. */
  only?: ReadonlySet<string>;
  node: TrieNode;
}

interface TrieNode {
  literal: Map<string, TrieNode>;
  params: ParamEdge[];
  endpoints: Endpoint[];
}

const newNode = (): TrieNode => ({ literal: new Map(), params: [], endpoints: [] });

function segmentsOf(path: string): string[] {
  return path.split('/').filter((s) => s.length > 0);
}

function insert(root: TrieNode, template: string, endpoint: Endpoint): void {
  let node = root;
  for (const seg of segmentsOf(template)) {
    const m = /^\{(\w+)(?:=([\w|]+))?\}$/.exec(seg);
    if (!m) {
      let next = node.literal.get(seg);
      if (!next) node.literal.set(seg, (next = newNode()));
      node = next;
      continue;
    }
    const [, name, words] = m;
    const onlyKey = words ?? '';
    let edge = node.params.find((p) => p.name === name && [...(p.only ?? [])].join('|') === onlyKey);
    if (!edge) {
      edge = { name: name!, ...(words ? { only: new Set(words.split('|')) } : {}), node: newNode() };
      node.params.push(edge);
      node.params.sort((a, b) => Number(!a.only) - Number(!b.only));
    }
    node = edge.node;
  }
  if (!node.endpoints.includes(endpoint)) node.endpoints.push(endpoint);
}

function search(node: TrieNode, segs: string[], i: number, params: Record<string, string>): RouteMatch | null {
  if (i === segs.length) return node.endpoints.length > 0 ? { endpoints: node.endpoints, params: { ...params } } : null;
  const seg = segs[i]!;
  const lit = node.literal.get(seg);
  if (lit) {
    const found = search(lit, segs, i + 1, params);
    if (found) return found;
  }
  for (const edge of node.params) {
    if (edge.only && !edge.only.has(seg)) continue;
    params[edge.name] = seg;
    const found = search(edge.node, segs, i + 1, params);
    delete params[edge.name];
    if (found) return found;
  }
  return null;
}

const TRIES = new Map<VersionId, TrieNode>(
  VERSIONS.map((v) => {
    const root = newNode();
    for (const e of ENDPOINTS) for (const f of e.forms) if (atLeast(v.id, f.from)) insert(root, f.template, e);
    return [v.id, root];
  }),
);

/**
 * Resolves a path (without version prefix; the product word already read as `insight`) in a version.
 * Literal segments win over parameters, so `/account/identity/limit/x` is the limit list, not an identity.
 */
export function resolvePath(version: VersionId, path: string): RouteMatch | null {
  let segs: string[];
  try {
    segs = segmentsOf(path).map((s) => decodeURIComponent(s));
  } catch {
    return null;
  }
  return search(TRIES.get(version)!, segs, 0, {});
}

/** Picks the endpoint for a method, or lists the methods the path accepts (for 405 `Allow`). */
export function pickMethod(match: RouteMatch, method: string): Endpoint | { allow: Method[] } {
  const m = method.toUpperCase();
  const e = match.endpoints.find((x) => (x.methods as string[]).includes(m));
  if (e) return e;
  const allow = [...new Set(match.endpoints.flatMap((x) => x.methods))].sort() as Method[];
  return { allow };
}
