/**
 * What a worker loads at the first durable call of a run (ctx.step, ctx.sleep,
 * ctx.waitForSignal…) or the first run that ends waiting or paused: the durable machinery,
 * in one chunk (docs/adr/0069-worker-chunks.md). Imported only with `import()`.
 */
export { DurableWrites } from '../store/durable-writes.js';
export { DurableRun } from './durable-run.js';
export { DurableWaits } from './durable-waits.js';
export { endPaused, endWaiting } from './wait-end.js';
