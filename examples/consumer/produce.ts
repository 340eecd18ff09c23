/**
 * Runs producer.ts's handler once, with the deployed producer function's environment and
 * nothing else of the executor's: the consumer test reads that environment from the emulator
 * (what `connectProducer` set) and adds only what Lambda's runtime would (region, credentials,
 * and here the emulator's endpoint). Both enqueues, the delayed one included, must work.
 */
import assert from 'node:assert/strict';
import { TaskClient, TaskStatus } from 'tasklane';
import { handler } from './producer.ts';

const { now, later } = await handler({ userId: 'from-the-producer' });

// connectProducer's { read: true } lets the producer read its tasks back.
const client = new TaskClient();
const [queued, scheduled] = await Promise.all([client.get(now), client.get(later)]);
assert.ok(queued, 'the immediate task is not in the table');
assert.ok(scheduled, 'the delayed task is not in the table');
assert.notEqual(queued.status, TaskStatus.SCHEDULED, 'the immediate task was scheduled');
assert.equal(scheduled.status, TaskStatus.SCHEDULED, 'the delayed task has no schedule');
console.log(`producer: ${now} is ${queued.status}, ${later} is ${scheduled.status}`);
