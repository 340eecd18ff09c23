/**
 * What a worker loads on the first use of a feature its tasks may not use: a recurring
 * schedule's firing, the release of a finished task's dependents, a rate limit's start, a
 * wake schedule, the integrity key, a claim-checked read or write. One chunk for them all, loaded by the first that is
 * used: every chunk loaded on first use adds shared chunks loaded at start, which cost more
 * import time than their bytes save (docs/adr/0069-worker-chunks.md). Imported only with
 * `import()`.
 */
export { ObjectStore } from '../claim-check/object-store.js';
export { releaseDependents } from '../dependencies/release.js';
export { eventPublisher } from '../events/publisher.js';
export { WorkerEvents } from '../events/worker-events.js';
export { resolveIntegrity } from '../integrity/tag.js';
export { Dispatcher } from '../scheduler/dispatcher.js';
export { SchedulerTarget } from '../scheduler/target.js';
export { WakeSchedules } from '../scheduler/wakes.js';
export { TokenBuckets } from '../store/token-bucket.js';
export { executeTraced } from './attempt-span.js';
export { resolvePayload, uploadResult } from './claim-check.js';
export { admitFiring } from './firing.js';
export { holdMessage, wakeIfSignalled } from './held.js';
export { holdParkedKey } from './parked.js';
export { RateLimiter } from './rate-limit.js';
