/** What the benchmark parent and a consumer child process exchange. */
import type { Tally } from '../lib/request-counter.js';

/** Which consumer a child runs. */
export type ConsumerKind = 'tasklane' | 'raw' | 'powertools';

/** The child's instructions, passed as JSON in the BENCH_CONSUMER environment variable. */
export interface ConsumerConfig {
  readonly kind: ConsumerKind;
  readonly queueUrl: string;
  /** Tasklane: the task table. Powertools: the idempotency table. Raw: unused. */
  readonly tableName: string;
  /** Stop once this many messages were deleted (each task's last delivery). */
  readonly expected: number;
  readonly timeoutMs: number;
  readonly batchSize: number;
  /** Concurrent invocations (the event source mapping's maximum concurrency). */
  readonly concurrency: number;
  /** Attributes keying the task table's global secondary index (for write units). */
  readonly indexKeyAttributes: readonly string[];
}

/** What the child measured. */
export interface ConsumerResult {
  /** From the first receive to the delete that reached `expected`. */
  readonly elapsedMs: number;
  readonly deleted: number;
  /** Messages reported as failed (to be retried) over the run. */
  readonly failed: number;
  /** Times the no-op ran. */
  readonly executions: number;
  /** Handler invocations (Lambda requests); the raw loop counts its batches. */
  readonly invocations: number;
  /** Median duration of one invocation, in ms. */
  readonly invocationMedianMs: number;
  /** Invocations that failed as a whole. */
  readonly batchErrors: number;
  readonly tally: Tally;
  /** Peak resident set size of the process, in KB. */
  readonly maxRssKb: number;
  /** Heap in use after a full collection at the end, in KB: what the run retained. */
  readonly heapAfterGcKb: number;
  readonly timedOut: boolean;
}

/** The stdout line prefix that carries the result. */
export const RESULT_MARKER = 'BENCH_RESULT ';
