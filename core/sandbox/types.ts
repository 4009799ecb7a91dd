// The sandbox's contract lives in the SDK (plugins see only core/sdk); core/sandbox implements it.
export type * from '@capture/sdk/sandbox';
