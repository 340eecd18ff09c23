/**
 * What `Worker.poll` loads on its first call: the poll loop and the lane gate, in one chunk
 * that a Lambda worker, which never polls, never loads (docs/adr/0069-worker-chunks.md).
 * Imported only with `import()`.
 */
export { readLanePauses, watchLanePauses } from './lane-gate.js';
export { pollQueue } from './sqs-poller.js';
