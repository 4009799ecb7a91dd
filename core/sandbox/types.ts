// The sandbox's contract lives in the SDK (plugins see only @capture/sdk: @capture/sdk/sandbox); core/sandbox implements it.
export type * from '@capture/sdk/sandbox';
