// The logger lives in the SDK (@capture/sdk/logger: packages/sdk/src/logger.ts) so core and plugins share one Logger type and
// one line format; core code imports it from here.
export { createLogger, formatText, type Level, levelEnabled, type LogFormat, resolveLogFormat, silentLogger } from '@capture/sdk/logger';
export type { Logger } from '@capture/sdk';
