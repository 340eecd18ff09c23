/**
 * (c) Messages without a record. 25 forged messages name ids that never existed; 25 replay
 * the exact messages of tasks that have since been purged. None may run a handler, and each
 * must leave one `message-rejected` audit event and be removed from the queue.
 */
import { randomUUID } from 'node:crypto';
import { describe, it } from 'vitest';
import { AuditEvent, MESSAGE_SCHEMA_VERSION, TaskStatus } from '../../src/core/constants.js';
import { recordingLogger } from '../helpers/executor.js';
import { FAULT_TASK_TYPE, type TaskProfile, WorkMode } from './lib/fault-tasks.js';
import { duplicateOf, type RawMessage, sendRaw } from './lib/messages.js';
import { eventuallyTrue, queueDepth, range, startPolling } from './lib/run.js';
import { Scenario } from './lib/scenario.js';

const FORGED = 25;
const REPLAYED = 25;
const PROFILE: TaskProfile = { timeoutMs: 5000, maxAttempts: 1, baseDelayMs: 100, maxDelayMs: 100 };

describe('messages without a record', () => {
  it(`executes none of ${FORGED + REPLAYED} orphan messages and audits each`, async () => {
    // Arrange: tasks that die at once and are purged, so their messages can be replayed.
    const s = await Scenario.open({
      id: 'c',
      title: '(c) Message without a record',
      description:
        '25 forged messages (ids that never existed) and 25 replays of the messages of tasks that were purged.',
      workerTimeoutSeconds: 5,
      maxAttempts: PROFILE.maxAttempts,
    });
    const logger = recordingLogger();
    const stop = startPolling(s.worker({ profile: PROFILE }, { logger }));
    const client = s.client();
    const task = s.producerTask(PROFILE);
    const purgedIds = range(REPLAYED).map((n) => `c-purged-${n}`);
    const replays: RawMessage[] = [];
    for (const [seq, id] of purgedIds.entries()) {
      const { record } = await client.enqueue(
        task,
        { seq, mode: WorkMode.PERMANENT, runMs: 0 },
        { id },
      );
      replays.push(duplicateOf(record, 1));
    }
    await eventuallyTrue(async () => {
      const dead = await client.listByStatus(TaskStatus.DEAD, { limit: 1000 });
      return dead.items.length === REPLAYED;
    }, 60_000);
    const purged = (await client.purge({ status: TaskStatus.DEAD, olderThan: 0 })).purged.length;
    const forgedIds = range(FORGED).map(() => randomUUID());
    const forged: RawMessage[] = forgedIds.map((id) => ({
      body: JSON.stringify({ tasklane: MESSAGE_SCHEMA_VERSION, id, type: FAULT_TASK_TYPE }),
      groupId: id,
      dedupId: id,
    }));
    const callsBefore = s.calls.entries.length;

    // Act
    await sendRaw(s.executor.clients.sqs, s.executor.queueUrl, [...forged, ...replays]);
    const orphans = new Set([...forgedIds, ...purgedIds]);
    const rejected = () =>
      logger.lines.filter(
        (l) =>
          l.attributes.event === AuditEvent.MESSAGE_REJECTED &&
          orphans.has(String(l.attributes.taskId)),
      );
    await eventuallyTrue(() => rejected().length >= orphans.size, 60_000);
    await eventuallyTrue(
      async () => (await queueDepth(s.executor.clients.sqs, s.executor.queueUrl)) === 0,
      30_000,
    );
    await stop();

    // Assert
    const executed = s.calls.entries.length - callsBefore;
    const audited = new Set(rejected().map((l) => String(l.attributes.taskId)));
    const complete = rejected().every(
      (l) =>
        l.attributes.workerId !== undefined &&
        l.attributes.at !== undefined &&
        String(l.attributes.detail).includes('no task record'),
    );
    s.setFigures({
      tasks: orphans.size,
      unexpected: executed + (orphans.size - audited.size),
      handlerCalls: executed,
    });
    s.note('orphan messages sent', orphans.size);
    s.note('tasks purged before their replay', purged);
    s.note('message-rejected audit events for orphans', rejected().length);
    s.check('none-executed', '0 executed', executed === 0, executed);
    s.check(
      'all-audited',
      `${orphans.size} audited (one message-rejected event each, with worker, time and reason)`,
      audited.size === orphans.size && rejected().length === orphans.size && complete,
      `${audited.size} ids, ${rejected().length} events, fields complete: ${complete}`,
    );
    s.check('purged', `${REPLAYED} tasks purged before replay`, purged === REPLAYED, purged);
    await s.finish();
  });
});
