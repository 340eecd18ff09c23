import { TaskCancelledError, TaskPausedError, TaskTimeoutError } from '../core/errors.js';
import type { TaskContext, TaskDefinition } from '../tasks/task-definition.js';

/** How a handler run ended. */
export type HandlerOutcome =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly error: unknown; readonly timedOut: boolean };

/**
 * Runs a handler under a timeout (the task's, or less when the invocation ends sooner). When the timeout elapses the context's signal aborts and
 * the run counts as failed at once: a handler that never settles cannot hold the worker.
 * The abandoned promise keeps running in the background (JavaScript cannot cancel it);
 * handlers should honour `signal`, and its late result is ignored.
 */
export async function runHandler(
  definition: TaskDefinition,
  timeoutMs: number,
  payload: unknown,
  context: Omit<TaskContext, 'signal'>,
  controller: AbortController,
): Promise<HandlerOutcome> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<HandlerOutcome>((resolve) => {
    timer = setTimeout(() => {
      const error = new TaskTimeoutError(context.taskId, timeoutMs);
      controller.abort(error);
      resolve({ ok: false, error, timedOut: true });
    }, timeoutMs);
  });
  // A lost lease ends the run at once; a cancel or pause request lets the handler stop by
  // itself, until its timeout (the caller then ends the task CANCELLED or PAUSED).
  const aborted = new Promise<HandlerOutcome>((resolve) => {
    controller.signal.addEventListener(
      'abort',
      () => {
        const reason: unknown = controller.signal.reason;
        if (!(reason instanceof TaskCancelledError || reason instanceof TaskPausedError)) {
          resolve({ ok: false, error: reason, timedOut: false });
        }
      },
      { once: true },
    );
  });
  const run = (async (): Promise<HandlerOutcome> => {
    try {
      const value = await definition.handler(payload, { ...context, signal: controller.signal });
      return { ok: true, value };
    } catch (error) {
      return { ok: false, error, timedOut: false };
    }
  })();
  try {
    return await Promise.race([run, timeout, aborted]);
  } finally {
    clearTimeout(timer);
  }
}
