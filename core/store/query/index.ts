// The search language: parseQuery() once per API call, then the store's compiler.
export type { QueryNode } from './ast.js';
export { QuerySyntaxError } from './errors.js';
export { parseQuery, MAX_QUERY_LENGTH, MAX_QUERY_DEPTH } from './parse.js';
export { resolveDate, resolveDateSpan, type DateSpan } from './datemath.js';
export { compileSql, exactMatch, matchText, textDriver, type IndexedText, type SqlFragment } from './sql.js';
export { compileMongo, type MongoFilter } from './mongo.js';
