/**
 * Runs tasks through the deployed executor, with `tasklane/local` playing Lambda's and
 * EventBridge Scheduler's parts: the event source mapping feeds the worker, the schedule
 * pump delivers delayed tasks, and the sweeper repairs what crashes leave behind.
 * The executor's location comes from the stack outputs, as TASKLANE_* environment variables.
 */
import assert from 'node:assert/strict';
import { SchedulerClient } from '@aws-sdk/client-scheduler';
import { SQSClient } from '@aws-sdk/client-sqs';
import {
  AuditEvent,
  createSweeper,
  createWorker,
  noopMetrics,
  silentLogger,
  TaskClient,
  TaskStatus,
} from 'tasklane';
import { createSchedulePump, runEventSourceMapping } from 'tasklane/local/testing';
import { charge, importCsv, sendWelcome, tasks } from './tasks.ts';

const { TASKLANE_QUEUE_URL = '', TASKLANE_SCHEDULE_GROUP = '' } = process.env;
// Quiet: no log lines, no EMF metrics on stdout (Lambda would ship them to CloudWatch).
const [logger, metrics] = [silentLogger, noopMetrics];

// Local stand-ins for the AWS services that run the executor.
const stop = new AbortController();
const sqs = new SQSClient({});
const running = Promise.all([
  runEventSourceMapping({
    sqs,
    queueUrl: TASKLANE_QUEUE_URL,
    handler: createWorker(tasks, { logger, metrics }).lambdaHandler,
    signal: stop.signal,
    logger,
  }),
  createSchedulePump({
    scheduler: new SchedulerClient({}),
    sqs,
    groupName: TASKLANE_SCHEDULE_GROUP,
  }).run({ signal: stop.signal }),
]);
const sweeper = createSweeper({ logger, metrics });
const sweeping = setInterval(() => void sweeper.run(), 5_000);

// Producer: 50 tasks. A delay beyond scheduleThresholdMs gets a one-time schedule.
const client = new TaskClient({ logger, scheduleThresholdMs: 1_000 });
const welcomes = await Promise.all(
  Array.from({ length: 36 }, (_, i) => client.enqueue(sendWelcome, { userId: `user-${i}` })),
);
const charges = [];
for (let i = 0; i < 12; i++) {
  const account = `account-${i % 3}`;
  charges.push(await client.enqueue(charge, { account, cents: 100 + i }, { orderingKey: account }));
}
const poison = await client.enqueue(importCsv, { url: 's3://uploads/photo.png' });
const delayed = await client.enqueue(sendWelcome, { userId: 'later' }, { delay: 5_000 });

const wait = (ids: { id: string }[]) =>
  Promise.all(ids.map(({ id }) => client.wait(id, { timeoutMs: 90_000 })));
const [doneWelcomes, doneCharges, [dead], [late]] = await Promise.all([
  wait(welcomes),
  wait(charges),
  wait([poison]),
  wait([delayed]),
]);
stop.abort();
clearInterval(sweeping);
await running;

// Every task ended as expected.
for (const record of [...doneWelcomes, ...doneCharges]) {
  assert.equal(record.status, TaskStatus.SUCCEEDED, `${record.id} ${record.status}`);
}
assert.equal(dead?.status, TaskStatus.DEAD);
assert.match(dead?.deadReason ?? '', /not a CSV file/);
assert.equal(late?.status, TaskStatus.SUCCEEDED);
const claimedAt = (record: { history: readonly { event: string; at: number }[] }) =>
  record.history.find((entry) => entry.event === AuditEvent.CLAIMED)?.at ?? Number.NaN;
assert.ok(late && claimedAt(late) >= (late.runAt ?? Number.NaN), 'the delayed task ran early');
for (let i = 3; i < doneCharges.length; i++) {
  // Charges of one account started in enqueue order.
  const [before, after] = [doneCharges[i - 3], doneCharges[i]];
  assert.ok(before && after && claimedAt(before) <= claimedAt(after), `${after?.id} overtook`);
}
console.log(`50 tasks: ${doneWelcomes.length + doneCharges.length + 1} succeeded, 1 dead`);
