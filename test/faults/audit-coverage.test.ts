/**
 * (8) Audit coverage. One task is driven through every kind of transition (submitted, sent,
 * claimed, heartbeat-extended, retry-scheduled, requeued, dead, redriven, succeeded), with a
 * stale worker, a duplicate and a forged message on the side, and a second task is
 * cancelled. Every transition must leave exactly one audit event, matching its history
 * entry, with the task id, type, attempt, worker, time and outcome (docs/design.md §1.7).
 */
import { DeleteMessageBatchCommand } from '@aws-sdk/client-sqs';
import type { SQSRecord } from 'aws-lambda';
import { describe, it } from 'vitest';
import { z } from 'zod';
import { AuditEvent, MESSAGE_SCHEMA_VERSION } from '../../src/core/constants.js';
import type { HistoryEntry } from '../../src/core/record.js';
import type { LogAttributes } from '../../src/observability/logger.js';
import { noopMetrics } from '../../src/observability/metrics.js';
import { createSweeper } from '../../src/sweeper/create-sweeper.js';
import type { TaskContext } from '../../src/tasks/task-definition.js';
import { defineTask } from '../../src/tasks/task-definition.js';
import type { Worker } from '../../src/worker/create-worker.js';
import { createWorker } from '../../src/worker/create-worker.js';
import { recordingLogger } from '../helpers/executor.js';
import { duplicateOf, receiveRecords, sendRaw } from './lib/messages.js';
import { eventuallyTrue } from './lib/run.js';
import { Scenario } from './lib/scenario.js';

/** Transitions recorded in the history; a heartbeat is counted on the record instead. */
const TRANSITIONS: ReadonlySet<string> = new Set([
  AuditEvent.SUBMITTED,
  AuditEvent.SENT,
  AuditEvent.CLAIMED,
  AuditEvent.RETRY_SCHEDULED,
  AuditEvent.SUCCEEDED,
  AuditEvent.DEAD,
  AuditEvent.CANCELLED,
  AuditEvent.REQUEUED,
  AuditEvent.REDRIVEN,
]);
/** Events where a worker (or the sweeper) acts, so the event must name it. */
const BY_WORKER: ReadonlySet<string> = new Set([
  AuditEvent.CLAIMED,
  AuditEvent.REQUEUED,
  AuditEvent.HEARTBEAT_EXTENDED,
  AuditEvent.RETRY_SCHEDULED,
  AuditEvent.SUCCEEDED,
  AuditEvent.DEAD,
  AuditEvent.STALE_DROPPED,
  AuditEvent.DUPLICATE_DROPPED,
  AuditEvent.MESSAGE_REJECTED,
]);
const MAIN_PATH = [
  'submitted#0',
  'claimed#1',
  'retry-scheduled#1',
  'claimed#2',
  'requeued#2',
  'claimed#3',
  'dead#3',
  'redriven#0',
  'claimed#1',
  'succeeded#1',
];

const key = (e: { event?: unknown; attempt?: unknown; at?: unknown }) =>
  `${String(e.event)}#${String(e.attempt)}@${String(e.at)}`;

describe('(8) audit coverage', () => {
  it('emits exactly one complete audit event per transition', async () => {
    // Arrange: a handler whose runs follow a script, one step per run.
    const s = await Scenario.open({
      id: 'audit',
      title: '(8) Audit coverage',
      description:
        'One task driven through every transition kind, a cancelled task, a stale worker, a duplicate and a forged message; the audit log is compared with the histories.',
      workerTimeoutSeconds: 5,
      maxAttempts: 3,
    });
    const logger = recordingLogger();
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const script: ((ctx: TaskContext) => Promise<unknown>)[] = [
      async (ctx) => {
        await ctx.heartbeat();
        throw new Error('first attempt fails');
      },
      async () => {
        await gate;
        return 'stale result';
      },
      async () => {
        throw new Error('last attempt fails');
      },
      async () => 'done',
    ];
    const task = defineTask('audit.task', {
      schema: z.object({ n: z.number() }),
      retry: { maxAttempts: 3, baseDelayMs: 100, maxDelayMs: 100 },
      timeout: 30_000,
      handler: (_payload, ctx) => (script.shift() ?? (async () => 'extra run'))(ctx),
    });
    const { tableName, queueUrl, clients } = s.executor;
    const base = {
      tableName,
      queueUrl,
      ...clients,
      logger,
      metrics: noopMetrics,
      leaseGraceMs: 1000,
    };
    const worker = createWorker([task], { ...base, workerId: 'audit-worker' });
    // Its clock is 10 minutes slow, so its lease has expired as soon as it is taken.
    const stale = createWorker([task], {
      ...base,
      workerId: 'audit-stale-worker',
      clock: () => Date.now() - 600_000,
    });
    const sweeper = createSweeper({
      tableName,
      queueUrl,
      ...clients,
      metrics: noopMetrics,
      logger,
      pendingAgeMs: 60_000,
      // The stale run holds the task's message: only the running scan finds its expired lease
      // (docs/adr/0052-running-leaves-the-status-index.md).
      scanRunning: true,
    });
    const client = s.client({ logger });
    // What the event source mapping does around the handler: delete what succeeded.
    const handle = async (w: Worker, records: readonly SQSRecord[]) => {
      const response = await w.processBatch(records);
      const failed = new Set(response.batchItemFailures.map((f) => f.itemIdentifier));
      const done = records.filter((r) => !failed.has(r.messageId));
      if (done.length > 0) {
        await clients.sqs.send(
          new DeleteMessageBatchCommand({
            QueueUrl: queueUrl,
            Entries: done.map((r, n) => ({ Id: String(n), ReceiptHandle: r.receiptHandle })),
          }),
        );
      }
    };
    /** The next batch: everything one receive returns, so no message is left in flight. */
    const next = async (): Promise<SQSRecord[]> => {
      const deadline = Date.now() + 20_000;
      for (;;) {
        const records = await receiveRecords(s.executor, 30);
        if (records.length > 0) return records;
        if (Date.now() > deadline) throw new Error('no message within 20 s');
      }
    };

    // Act
    const { id } = await client.enqueue(task, { n: 1 }, { id: 'audit-main' });
    await handle(worker, await next()); // claimed, heartbeat-extended (counted), retry-scheduled
    const staleRun = handle(stale, await next()); // claimed#2 under an expired lease
    await eventuallyTrue(async () => (await client.get(id))?.attempt === 2, 10_000);
    await sweeper.run(); // requeued, sent
    release();
    await staleRun; // stale-dropped, its message handed back
    // claimed#3 from the handed-back message, dead; the sweeper's copy behind it in the
    // group is then a duplicate (duplicate-dropped), here or in a later batch.
    await handle(worker, await next());
    await client.redrive({ ids: [id] }); // redriven, sent
    await handle(worker, await next()); // claimed#1, succeeded
    const done = await client.get(id);
    if (done !== undefined) await sendRaw(clients.sqs, queueUrl, [duplicateOf(done, 9)]);
    await handle(worker, await next()); // duplicate-dropped
    await sendRaw(clients.sqs, queueUrl, [
      {
        body: JSON.stringify({
          tasklane: MESSAGE_SCHEMA_VERSION,
          id: 'audit-forged',
          type: 'audit.task',
        }),
        groupId: 'forged',
        dedupId: 'forged',
      },
    ]);
    await handle(worker, await next()); // message-rejected
    const { id: cancelId } = await client.enqueue(task, { n: 2 }, { id: 'audit-cancel' });
    await client.cancel(cancelId, 'no longer needed'); // cancelled
    await handle(worker, await next()); // duplicate-dropped (already CANCELLED)

    // Assert
    const audits = logger.lines.filter((l) => l.attributes.audit === true).map((l) => l.attributes);
    const problems: string[] = [];
    const checkFields = (a: LogAttributes) => {
      const event = String(a.event);
      // An orphan message has no record, hence no attempt; its envelope still names the
      // task's id and type.
      const required =
        event === AuditEvent.MESSAGE_REJECTED
          ? ['taskId', 'taskType', 'at']
          : ['taskId', 'taskType', 'attempt', 'at'];
      const missing = required.filter((f) => a[f] === undefined || a[f] === '');
      if (a.status === undefined && a.detail === undefined) missing.push('status/detail');
      if (BY_WORKER.has(event) && a.workerId === undefined) missing.push('workerId');
      if (missing.length > 0) {
        problems.push(`${event} of ${String(a.taskId)} lacks ${missing.join(', ')}`);
      }
    };
    audits.forEach(checkFields);
    for (const taskId of [id, cancelId]) {
      const stored = await client.get(taskId);
      const history: readonly HistoryEntry[] = stored?.history ?? [];
      const heartbeats = audits.filter(
        (a) => a.taskId === taskId && a.event === AuditEvent.HEARTBEAT_EXTENDED,
      ).length;
      if (heartbeats !== (stored?.heartbeats ?? 0)) {
        problems.push(`${taskId}: ${heartbeats} heartbeat events ≠ ${stored?.heartbeats} counted`);
      }
      const logged = audits
        .filter((a) => a.taskId === taskId && TRANSITIONS.has(String(a.event)))
        .map((a) => key({ ...a, at: Date.parse(String(a.at)) }));
      const kept = history.map(key);
      if (JSON.stringify([...logged].sort()) !== JSON.stringify([...kept].sort())) {
        problems.push(`${taskId}: audit events ${logged.join(' ')} ≠ history ${kept.join(' ')}`);
      }
    }
    const mainPath = ((await client.get(id))?.history ?? []).map((h) => `${h.event}#${h.attempt}`);
    const count = (event: string, taskId: string) =>
      audits.filter((a) => a.event === event && a.taskId === taskId).length;
    const sideEvents = {
      'stale-dropped': count(AuditEvent.STALE_DROPPED, id),
      'duplicate-dropped':
        count(AuditEvent.DUPLICATE_DROPPED, id) + count(AuditEvent.DUPLICATE_DROPPED, cancelId),
      'message-rejected': count(AuditEvent.MESSAGE_REJECTED, 'audit-forged'),
    };
    const kinds = new Set(audits.map((a) => String(a.event)));
    s.setFigures({ tasks: 2 });
    s.note('audit events', audits.length);
    s.note('kinds of event covered', [...kinds].sort().join(', '));
    s.check(
      'path',
      'the main task went through every transition kind',
      JSON.stringify(mainPath) === JSON.stringify(MAIN_PATH),
      mainPath.join(' > '),
    );
    s.check(
      'one-per-transition',
      'exactly one audit event per history entry (same event, attempt and time), and one per counted heartbeat',
      !problems.some((p) => p.includes('≠')),
      problems.filter((p) => p.includes('≠')).join('; ') || 'all matched',
    );
    s.check(
      'side-events',
      'stale-dropped, 3 × duplicate-dropped (the sweeper copy of the requeued task, a repeat, a cancelled task) and message-rejected each audited once',
      sideEvents['stale-dropped'] === 1 &&
        sideEvents['duplicate-dropped'] === 3 &&
        sideEvents['message-rejected'] === 1,
      JSON.stringify(sideEvents),
    );
    s.check(
      'fields',
      'every event has id, type, attempt, time, outcome, and the worker where one acts',
      !problems.some((p) => p.includes('lacks')),
      problems.filter((p) => p.includes('lacks')).join('; ') || 'all complete',
    );
    await s.finish();
  });
});
