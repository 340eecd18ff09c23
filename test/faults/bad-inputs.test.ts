/**
 * (k) Bad inputs. 500 generated cases (fast-check, seeded): oversize payloads and bodies,
 * __proto__/constructor keys, nesting 10,000 deep, non-JSON values and bodies, unknown task
 * types, and wrong attribute types, at the producer (enqueue, defineTask) and at the worker
 * (forged messages, and records written behind the SDK's back). Every one must be rejected
 * with a typed error, no worker may crash, and no prototype may be polluted.
 */
import { randomUUID } from 'node:crypto';
import type { SQSRecord } from 'aws-lambda';
import fc from 'fast-check';
import { describe, it } from 'vitest';
import { z } from 'zod';
import type { EnqueueOptions } from '../../src/client/prepare.js';
import { AuditEvent, MESSAGE_SCHEMA_VERSION, TaskStatus } from '../../src/core/constants.js';
import { ErrorCode, TasklaneError } from '../../src/core/errors.js';
import { RecordWrites } from '../../src/store/record-writes.js';
import { defineTask } from '../../src/tasks/task-definition.js';
import { REGION } from '../helpers/aws.js';
import { recordingLogger } from '../helpers/executor.js';
import { type BadInput, badInputs, looksPolluted, prototypeSnapshot } from './lib/bad-inputs.js';
import { type TaskProfile, workPayload } from './lib/fault-tasks.js';
import { Scenario } from './lib/scenario.js';

const CASES = 500;
const PROFILE: TaskProfile = { timeoutMs: 5000, maxAttempts: 3, baseDelayMs: 100, maxDelayMs: 100 };
const TYPED_AT_ENQUEUE: readonly string[] = [ErrorCode.VALIDATION, ErrorCode.PAYLOAD_TOO_LARGE];
const TYPED_AT_WORKER: readonly string[] = ['UnknownTaskTypeError', 'ValidationError'];

type Outcome = 'rejected' | 'accepted' | 'untyped error' | 'worker crash';

describe('bad inputs', () => {
  it(`rejects ${CASES} generated bad inputs with a typed error`, async () => {
    // Arrange
    const s = await Scenario.open({
      id: 'k',
      title: '(k) Bad inputs',
      description:
        "500 fast-check cases at the producer (enqueue, defineTask) and at the worker (forged messages; records written behind the SDK's back).",
      workerTimeoutSeconds: 5,
      maxAttempts: PROFILE.maxAttempts,
    });
    const logger = recordingLogger();
    const worker = s.worker({ profile: PROFILE }, { logger });
    const client = s.client();
    const strict = s.producerTask(PROFILE);
    const blob = defineTask('fault.blob', {
      schema: z.object({ blob: z.string() }),
      handler: () => undefined,
    });
    const cases = fc.sample(badInputs, { seed: s.seed, numRuns: CASES });
    const before = prototypeSnapshot();
    const sqsRecord = (body: string, groupId: string | undefined, receiveCount: string) =>
      ({
        messageId: randomUUID(),
        receiptHandle: `forged-${randomUUID()}`,
        body,
        attributes: {
          ApproximateReceiveCount: receiveCount,
          SentTimestamp: String(Date.now()),
          SenderId: 'forger',
          ApproximateFirstReceiveTimestamp: String(Date.now()),
          ...(groupId === undefined ? {} : { MessageGroupId: groupId }),
        },
        messageAttributes: {},
        md5OfBody: '',
        eventSource: 'aws:sqs',
        eventSourceARN: s.executor.queueArn,
        awsRegion: REGION,
      }) as SQSRecord;
    const rejectedMessage = (messageId: string) =>
      logger.lines.some(
        (l) =>
          l.attributes.event === AuditEvent.MESSAGE_REJECTED &&
          l.attributes.messageId === messageId,
      );
    const deliver = async (record: SQSRecord): Promise<Outcome | undefined> => {
      try {
        const response = await worker.processBatch([record]);
        return response.batchItemFailures.length === 0 ? undefined : 'accepted';
      } catch {
        return 'worker crash';
      }
    };

    const run = async (c: BadInput, n: number): Promise<Outcome> => {
      switch (c.surface) {
        case 'enqueue': {
          try {
            const task = c.task === 'blob' ? blob : strict;
            await client.enqueue(task, c.payload() as never, c.options as EnqueueOptions);
            return 'accepted';
          } catch (err) {
            return err instanceof TasklaneError && TYPED_AT_ENQUEUE.includes(err.code)
              ? 'rejected'
              : 'untyped error';
          }
        }
        case 'define': {
          try {
            defineTask(c.type as string, { schema: workPayload, handler: () => undefined });
            return 'accepted';
          } catch (err) {
            return err instanceof TasklaneError && err.code === ErrorCode.VALIDATION
              ? 'rejected'
              : 'untyped error';
          }
        }
        case 'message': {
          const record = sqsRecord(c.body, c.groupId, c.receiveCount);
          return (
            (await deliver(record)) ?? (rejectedMessage(record.messageId) ? 'rejected' : 'accepted')
          );
        }
        case 'record': {
          const id = `k-record-${n}`;
          await s.executor.store.feature(RecordWrites).create({
            id,
            type: c.recordType,
            payloadJson: c.payloadJson,
            payloadHash: 'forged',
            maxAttempts: PROFILE.maxAttempts,
            timeoutMs: PROFILE.timeoutMs,
            messageGroupId: id,
          });
          const body = JSON.stringify({
            tasklane: MESSAGE_SCHEMA_VERSION,
            id,
            type: c.envelopeType,
          });
          const record = sqsRecord(body, id, '1');
          const failed = await deliver(record);
          if (failed !== undefined) return failed;
          const after = await s.executor.store.get(id);
          if (c.recordType !== c.envelopeType) {
            return rejectedMessage(record.messageId) && after?.attempt === 0
              ? 'rejected'
              : 'accepted';
          }
          return after?.status === TaskStatus.DEAD &&
            after.attempt === 1 &&
            TYPED_AT_WORKER.includes(after.lastError?.name ?? '')
            ? 'rejected'
            : 'accepted';
        }
      }
    };

    // Act
    const outcomes: { kind: string; outcome: Outcome }[] = [];
    let polluted = 0;
    for (const [n, c] of cases.entries()) {
      outcomes.push({ kind: `${c.kind} (${c.surface})`, outcome: await run(c, n) });
      if (prototypeSnapshot() !== before || looksPolluted()) polluted += 1;
    }

    // Assert
    const byKind = new Map<string, { total: number; rejected: number }>();
    for (const o of outcomes) {
      const k = byKind.get(o.kind) ?? { total: 0, rejected: 0 };
      k.total += 1;
      if (o.outcome === 'rejected') k.rejected += 1;
      byKind.set(o.kind, k);
    }
    const rejected = outcomes.filter((o) => o.outcome === 'rejected').length;
    const crashes = outcomes.filter((o) => o.outcome === 'worker crash').length;
    s.note('rejected with a typed error', `${rejected}/${CASES}`);
    const odd = outcomes.filter((o) => o.outcome !== 'rejected');
    s.setFigures({
      tasks: CASES,
      unexpected: CASES - rejected,
      handlerCalls: s.calls.entries.length,
    });
    // One criterion per kind of input, so that a known failure of one kind hides no other.
    for (const [kind, k] of [...byKind].sort()) {
      s.check(
        `rejected:${kind}`,
        `${kind}: 100% rejected with a typed error`,
        k.rejected === k.total,
        `${k.rejected}/${k.total}`,
      );
    }
    s.note(
      'first cases not rejected',
      odd
        .slice(0, 3)
        .map((o) => `${o.kind}: ${o.outcome}`)
        .join('; ') || 'none',
    );
    s.check('no-crash', '0 worker crashes', crashes === 0, crashes);
    s.check('no-pollution', '0 prototype pollution', polluted === 0, polluted);
    s.check('not-run', '0 handler calls', s.calls.entries.length === 0, s.calls.entries.length);
    await s.finish();
  });
});
