import * as z from 'zod';
import { defineTask, TaskClient } from '../src/index.js';

export const sendReminder = defineTask('sendReminder', {
  schema: z.object({ userId: z.string(), text: z.string() }),
  handler: async ({ userId, text }, ctx) => {
    ctx.logger.info('reminder sent', { userId, text });
  },
});

export const nightlyReport = defineTask('nightlyReport', {
  schema: z.object({ kind: z.enum(['sales', 'usage']) }),
  handler: async ({ kind }, ctx) => {
    // ctx.taskId is `<schedule>@<scheduled time>`, e.g. nightly-sales@2030-01-31T01:00:00Z.
    ctx.logger.info('report built', { kind, taskId: ctx.taskId });
  },
});

// Besides the table and queue, scheduling reads TASKLANE_SCHEDULE_GROUP,
// TASKLANE_SCHEDULER_ROLE_ARN and TASKLANE_SCHEDULE_DLQ_ARN (and TASKLANE_QUEUE_ARN).
const client = new TaskClient();

export async function remindLater(userId: string): Promise<void> {
  // Stored SCHEDULED now; a one-time EventBridge Scheduler schedule delivers it in an hour.
  const { id } = await client.enqueue(
    sendReminder,
    { userId, text: 'Your trial ends tomorrow' },
    { id: `trial-reminder-${userId}`, delay: 60 * 60_000 },
  );
  // Changed your mind? Cancelling deletes the schedule; a firing already sent is dropped.
  if (userId === 'opted-out') await client.cancel(id);
}

export async function setUpReports(): Promise<void> {
  // Every day at 01:00 Berlin time, summer and winter. Validated before any AWS call.
  await client.schedules.set('nightly-sales', {
    cron: '0 1 * * ? *',
    timezone: 'Europe/Berlin',
    task: nightlyReport,
    payload: { kind: 'sales' },
  });
  await client.schedules.set('usage-every-15-min', {
    rate: '15 minutes',
    task: nightlyReport,
    payload: { kind: 'usage' },
  });
  await client.schedules.pause('usage-every-15-min');
  console.log(await client.schedules.list()); // names and states
  await client.schedules.resume('usage-every-15-min');
  await client.schedules.delete('usage-every-15-min');
}
