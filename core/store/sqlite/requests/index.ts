// The request engine's boundary: the one module of this folder that code outside it imports
// (the lint's capture/import-boundaries rule holds it to that). engine.ts says what the engine is.
export { openRequestEngine, inThreadTokenRequests, type RequestEngine, type RequestEngineOptions, type TokenRequests } from './engine.js';
export type { RequestTransfer } from './transfer.js';
export type { CaptureWriter } from './writer/capture-writer.js';
// Measurement scripts seed requests as rows, caught up later.
export { requestSeeder } from './seed.js';
// The migrations build the search tables with these (search/).
export { plainBody } from './search/fts-writes.js';
export { FILL_FROM_TOP } from './search/search-tokens.js';
