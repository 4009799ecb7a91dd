// The tokenizer moved to the SDK, where the hosted Databases (core/databases) use it too
// (@capture/sdk/sql), as plugins reach every SDK helper.
export { bindParameters, type BoundStatement, type Dialect, MIXED_MESSAGE, mixesStyles, ParameterError, type ParamsInput, type Placeholder, scanPlaceholders, type SqlValue } from '@capture/sdk/sql';
