// The tokenizer moved to the SDK, where the hosted Databases (core/databases) use it too
// (core/sdk/sql-placeholders.ts), and plugins reach it through the SDK index like everything else.
export { bindParameters, type BoundStatement, type Dialect, MIXED_MESSAGE, mixesStyles, ParameterError, type ParamsInput, type Placeholder, scanPlaceholders, type SqlValue } from '@capture/sdk/sql';
