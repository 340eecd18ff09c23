/** The types of TaskClient's options and results, in one place for the package's index. */
export type { PricedUsage, PriceTable } from '../observability/cost.js';
export type { BatchEntryResult } from './batch.js';
export type { CancelResult, CancelSelection } from './cancel-many.js';
export type { CountOptions, TaskCounts } from './counts.js';
export type { DeadLetter, DeadLetterStats } from './dead-letters.js';
export type { Duration } from './duration.js';
export type { BatchEntry, EnqueueResult } from './enqueue.js';
export type { BatchThen, FanInOptions, FanInResult } from './fan-in.js';
export type { GetOptions } from './get-result.js';
export type {
  DeadLetterClient,
  LaneDeadLetter,
  LaneDeadLetterStats,
} from './lane-dead-letters.js';
export type { StatusPageOptions, TaskListFilter, TaskListPage } from './list-tasks.js';
export type { TaskClientOptions } from './options.js';
export type { ParkedKey, ReleaseKeyOptions, ReleaseKeyResult } from './parked-keys.js';
export type { PurgeOptions, PurgeResult } from './purge.js';
export type { WaitOptions } from './wait.js';
export type { TaskTransition, WatchOptions } from './watch.js';
