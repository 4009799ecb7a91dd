// The search language's syntax tree (reference: webhook.site api/requests.md, api/date-expressions.md).
// Parsed once by parse.ts; compiled by sql.ts (bound parameters) and mongo.ts (plain filter objects).

export type QueryNode =
  | { kind: 'and'; children: QueryNode[] }
  | { kind: 'or'; children: QueryNode[] }
  | { kind: 'not'; child: QueryNode }
  /** `value` or `field:value`; a bare term searches `content`. `*` in an unquoted value is a wildcard. */
  | { kind: 'term'; field: string; value: string; quoted: boolean; pos: number }
  /** `_exists_:field` */
  | { kind: 'exists'; field: string; pos: number }
  /** `field:[from TO to]` (inclusive) or `{from TO to}` (exclusive); null is an open end (`*`). */
  | { kind: 'range'; field: string; from: string | null; to: string | null; includeFrom: boolean; includeTo: boolean; pos: number };
