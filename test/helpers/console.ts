/** Tasks and seed data shared by the console's integration and browser tests. */
import * as z from 'zod';
import type { TaskClient } from '../../src/client/task-client.js';
import { PermanentError } from '../../src/core/errors.js';
import { defineTask } from '../../src/tasks/task-definition.js';

/** A payload that would run script if the console did not escape it. */
export const HOSTILE_NOTE = '<script>window.__tasklaneXss = true</script><b>bold?</b>';

/** Flip `healthy` to make `fragile` tasks succeed (e.g. before a redrive). */
export const fragileState = { healthy: false };

/** Always succeeds, returning a small result. */
export const reportTask = defineTask('build-report', {
  schema: z.object({ month: z.string() }),
  handler: ({ month }) => ({ month, rows: 42 }),
});

/** Fails permanently (straight to DEAD) until `fragileState.healthy` is set. */
export const fragileTask = defineTask('charge-card', {
  schema: z.object({ note: z.string() }),
  retry: { maxAttempts: 2 },
  handler: () => {
    if (!fragileState.healthy) throw new PermanentError('card processor unavailable');
    return { charged: true };
  },
});

/** The ids {@link seedTasks} enqueues. */
export const SEEDED = {
  reports: ['report-2026-01', 'report-2026-02', 'report-2026-03'],
  dead: 'charge-hostile',
} as const;

/**
 * Enqueues three reports and one fragile task whose payload is {@link HOSTILE_NOTE}, for the
 * worker to run (the fragile one dies unless `fragileState.healthy`).
 */
export async function seedTasks(client: TaskClient): Promise<void> {
  for (const id of SEEDED.reports) {
    await client.enqueue(reportTask, { month: id.slice(7) }, { id });
  }
  await client.enqueue(fragileTask, { note: HOSTILE_NOTE }, { id: SEEDED.dead });
}
