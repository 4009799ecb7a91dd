// The tokenizer moved to the SDK, where the hosted Databases (core/databases) use it too
// (core/sdk/sql-placeholders.ts), and plugins reach it through the SDK index like everything else.
export { MIXED_MESSAGE, ParameterError, bindParameters, mixesStyles, scanPlaceholders } from '../../../core/sdk/index.js';
export type { BoundStatement, Dialect, ParamsInput, Placeholder, SqlValue } from '../../../core/sdk/index.js';
