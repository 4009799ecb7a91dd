// The tokenizer moved to the SDK, where the hosted Databases (core/databases) use it too.
export * from '../../../core/sdk/sql-placeholders.js';
