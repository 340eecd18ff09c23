import { isTerminal } from '../core/constants.js';
import { TaskNotFoundError, WaitTimeoutError } from '../core/errors.js';
import type { TaskRecord } from '../core/record.js';

/** Options of {@link TaskClient.wait}. */
export interface WaitOptions {
  /** Give up after this long. @default 60000 */
  readonly timeoutMs?: number;
  /** First poll interval; grows to 2 s (to 1 s with `onProgress`). @default 100 */
  readonly intervalMs?: number;
  /**
   * Called with the task's progress (see `ctx.progress`) each time a poll finds it changed,
   * and once with the first progress found. An error it throws ends the wait.
   */
  readonly onProgress?: (progress: unknown, record: TaskRecord) => void;
}

/** The longest pause between two polls, and with `onProgress`: progress shows within about a second. */
const MAX_INTERVAL_MS = 2000;
const MAX_PROGRESS_INTERVAL_MS = 1000;

/**
 * Polls `read` until the task is terminal, backing off from `intervalMs` to 2 s (1 s with
 * `onProgress`, as a worker writes a run's first report at once), and reports each new
 * progress it sees to `onProgress`.
 *
 * @throws TaskNotFoundError when no task has this id.
 * @throws WaitTimeoutError after `timeoutMs`, carrying the last record seen.
 */
export async function waitForTerminal(
  id: string,
  read: (id: string) => Promise<TaskRecord | undefined>,
  clock: () => number,
  options: WaitOptions = {},
): Promise<TaskRecord> {
  const timeoutMs = options.timeoutMs ?? 60_000;
  const deadline = clock() + timeoutMs;
  let interval = options.intervalMs ?? 100;
  const cap = options.onProgress === undefined ? MAX_INTERVAL_MS : MAX_PROGRESS_INTERVAL_MS;
  let progressAt: number | undefined;
  for (;;) {
    const record = await read(id);
    if (record === undefined) throw new TaskNotFoundError(id);
    if (record.progressAt !== undefined && record.progressAt !== progressAt) {
      progressAt = record.progressAt;
      options.onProgress?.(record.progress, record);
    }
    if (isTerminal(record.status)) return record;
    const left = deadline - clock();
    if (left <= 0) throw new WaitTimeoutError(id, timeoutMs, record);
    await new Promise((resolve) => setTimeout(resolve, Math.min(interval, left)));
    interval = Math.min(interval * 2, cap);
  }
}
