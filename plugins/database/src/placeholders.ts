// The tokenizer moved to the SDK, where the hosted Databases (core/databases) use it too
// (core/sdk/sql-placeholders.ts), and plugins reach it through the SDK index like everything else.
export { MIXED_MESSAGE, ParameterError, bindParameters, mixesStyles, scanPlaceholders } from '@capture/sdk';
export type { BoundStatement, Dialect, ParamsInput, Placeholder, SqlValue } from '@capture/sdk';
