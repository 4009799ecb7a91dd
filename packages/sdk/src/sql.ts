// @capture/sdk/sql: SQL parameters (`:name` and `?` placeholders bound per dialect) and the
// PostgreSQL type parsers the database actions and the host's hosted databases share.
export { MIXED_MESSAGE, ParameterError, bindParameters, mixesStyles, scanPlaceholders } from './sql-placeholders.js';
export type { BoundStatement, Dialect, ParamsInput, Placeholder, SqlValue } from './sql-placeholders.js';
export { postgresTypes } from './postgres.js';
