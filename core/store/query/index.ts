// The search language: parseQuery() once per API call, then the store's compiler (compileMongo here;
// compilePlainSql, which the SQLite engine's compiler in core/store/sqlite/requests/search/compile-sql.ts extends).
export type { QueryNode } from './ast.js';
export { QuerySyntaxError } from './errors.js';
export { parseQuery, MAX_QUERY_LENGTH, MAX_QUERY_DEPTH } from './parse.js';
export { resolveDate, resolveDateSpan, type DateSpan } from './datemath.js';
export { compileMongo, type MongoFilter } from './mongo.js';
export { compilePlainSql, type PlainSql } from './sql.js';
