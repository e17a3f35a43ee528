/**
 * The filter language's syntax tree. Logical groups are n-ary and flattened (`a and (b and c)` is one
 * `and` of three), so spellings that differ only in grouping of one operator share a canonical form.
 */
export type Expr = AndExpr | OrExpr | NotExpr | Condition | StreamRef;

export interface AndExpr {
  type: 'and';
  items: Expr[];
}
export interface OrExpr {
  type: 'or';
  items: Expr[];
}
export interface NotExpr {
  type: 'not';
  item: Expr;
}
export interface StreamRef {
  type: 'stream';
  /** 32 lowercase hex: the compiled definition whose filter logic is included. */
  hash: string;
}

export const OPERATORS = [
  'contains',
  'substr',
  'contains_any',
  'contains_all',
  'contains_near',
  'wildcard',
  'exists',
  'in',
  'url_in',
  '==',
  '!=',
  '<',
  '>',
  '<=',
  '>=',
  'regex_partial',
  'regex_exact',
  'geo_box',
  'geo_radius',
  'geo_polygon',
] as const;
export type Operator = (typeof OPERATORS)[number];

/** Synonyms and the canonical operator they stand for. */
export const OPERATOR_SYNONYMS: Record<string, Operator> = {
  any: 'contains_any',
  all: 'contains_all',
  near: 'contains_near',
  wild: 'wildcard',
  contains_substr: 'substr',
};

export type Argument =
  | { kind: 'string'; value: string }
  | { kind: 'number'; value: number }
  /** A comma list carried in one string (`"en,de"`): items trimmed, `\,` a literal comma. */
  | { kind: 'list'; items: string[] }
  /** `[1, 2, 3]`: integers only, for `in`. */
  | { kind: 'ints'; values: number[] }
  /** `contains_near "w1,w2:N"`. */
  | { kind: 'near'; words: string[]; distance: number }
  /** geo_box: two points; geo_radius: one point and a radius in km; geo_polygon: 3 to 32 points. */
  | { kind: 'geo'; points: Array<[number, number]>; radius?: number };

export interface Switch {
  /** `keep`, `drop`, `case`, lower case. */
  name: string;
  arg: string;
}

export interface Condition {
  type: 'cond';
  /** Lower-case dotted path. */
  target: string;
  /** The `cs` prefix: case-sensitive. */
  cs: boolean;
  op: Operator;
  switches: Switch[];
  arg: Argument | null;
}

export type TagRule =
  | { type: 'tag'; namespace: string[]; name: string; body: Expr }
  | { type: 'score'; namespace: string[]; score: number; body: Expr }
  | { type: 'include'; hash: string };

/**
 * A whole definition: a plain filter (`form: 'plain'`), tag rules and a `return` block, or tag rules
 * alone (usable only through `tags "<hash>"`).
 */
export interface Definition {
  form: 'plain' | 'return' | 'tags-only';
  tags: TagRule[];
  body: Expr | null;
}

/** Which filter the text is: a recording's definition, or an analysis query filter (conditions only). */
export type FilterKind = 'definition' | 'query';
