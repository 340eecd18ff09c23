import {
  DeleteRuleCommand,
  PutRuleCommand,
  PutTargetsCommand,
  RemoveTargetsCommand,
} from '@aws-sdk/client-eventbridge';
import {
  CreateQueueCommand,
  DeleteMessageBatchCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
} from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { TaskStatus } from '../../src/core/constants.js';
import { PermanentError } from '../../src/core/errors.js';
import { LifecycleEventType, type TaskEventDetail } from '../../src/events/lifecycle-event.js';
import { type LocalExecutor, startLocalExecutor } from '../../src/local/local-executor.js';
import { defineTask } from '../../src/tasks/task-definition.js';
import { testClients, testEventBridge, uniqueName } from '../helpers/aws.js';
import { eventually } from '../helpers/executor.js';

/** An event as the rule's SQS target receives it. */
interface Delivered {
  readonly source: string;
  readonly 'detail-type': string;
  readonly detail: TaskEventDetail;
}

const flakyRuns = new Map<string, number>();
const ok = defineTask('ok', {
  schema: z.object({ n: z.number() }),
  handler: ({ n }) => ({ doubled: n * 2 }),
});
const flaky = defineTask('flaky', {
  schema: z.object({}),
  retry: { maxAttempts: 3, baseDelayMs: 200 },
  handler: (_payload, ctx) => {
    const runs = (flakyRuns.get(ctx.taskId) ?? 0) + 1;
    flakyRuns.set(ctx.taskId, runs);
    if (runs === 1) throw new Error('first attempt fails');
    return 'second time lucky';
  },
});
const doomed = defineTask('doomed', {
  schema: z.object({}),
  handler: () => {
    throw new PermanentError('cannot ever work');
  },
});
const slow = defineTask('slow', {
  schema: z.object({ ms: z.number() }),
  handler: ({ ms }) => new Promise<void>((resolve) => setTimeout(resolve, ms)),
});

const name = uniqueName('events');
const { sqs } = testClients();
const eventBridge = testEventBridge();
let running: LocalExecutor;
let targetUrl: string;

beforeAll(async () => {
  running = await startLocalExecutor({
    tasks: [ok, flaky, doomed, slow],
    name,
    events: true,
    log: 'silent',
  });
  // A rule on the executor's bus that forwards every Tasklane event to a plain queue.
  targetUrl =
    (await sqs.send(new CreateQueueCommand({ QueueName: `${name}-events` }))).QueueUrl ?? '';
  const attributes = await sqs.send(
    new GetQueueAttributesCommand({ QueueUrl: targetUrl, AttributeNames: ['QueueArn'] }),
  );
  await eventBridge.send(
    new PutRuleCommand({
      Name: `${name}-all`,
      EventBusName: running.location.eventBus,
      EventPattern: JSON.stringify({ source: [`tasklane.${name}`] }),
    }),
  );
  await eventBridge.send(
    new PutTargetsCommand({
      Rule: `${name}-all`,
      EventBusName: running.location.eventBus,
      Targets: [{ Id: 'queue', Arn: attributes.Attributes?.QueueArn }],
    }),
  );
});

afterAll(async () => {
  await eventBridge.send(
    new RemoveTargetsCommand({
      Rule: `${name}-all`,
      EventBusName: running.location.eventBus,
      Ids: ['queue'],
    }),
  );
  await eventBridge.send(
    new DeleteRuleCommand({ Name: `${name}-all`, EventBusName: running.location.eventBus }),
  );
  await running.stop();
  eventBridge.destroy();
});

/** Reads the target queue until `until` holds for what was delivered so far. */
async function readEvents(until: (events: Delivered[]) => boolean): Promise<Delivered[]> {
  const events: Delivered[] = [];
  await eventually(async () => {
    const out = await sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: targetUrl,
        MaxNumberOfMessages: 10,
        WaitTimeSeconds: 1,
      }),
    );
    const messages = out.Messages ?? [];
    for (const message of messages) events.push(JSON.parse(message.Body ?? '{}') as Delivered);
    if (messages.length > 0) {
      await sqs.send(
        new DeleteMessageBatchCommand({
          QueueUrl: targetUrl,
          Entries: messages.map((m, i) => ({
            Id: String(i),
            ReceiptHandle: m.ReceiptHandle ?? '',
          })),
        }),
      );
    }
    return until(events);
  }, 60_000);
  return events;
}

const about = (events: Delivered[], taskId: string) =>
  events.filter((e) => e.detail.taskId === taskId);

describe('lifecycle events through EventBridge', () => {
  it('delivers Succeeded, Failed, Dead and Cancelled to a rule that targets a queue', async () => {
    const { client } = running;
    const blocker = await client.enqueue(slow, { ms: 2_000 }, { orderingKey: 'k' });
    const behind = await client.enqueue(slow, { ms: 0 }, { orderingKey: 'k' });
    await client.cancel(behind.id); // Still QUEUED behind the blocker: the worker meets it later.
    const succeeds = await client.enqueue(ok, { n: 21 });
    const retried = await client.enqueue(flaky, {});
    const dies = await client.enqueue(doomed, {});

    const events = await readEvents(
      (seen) =>
        [succeeds.id, retried.id, dies.id, blocker.id, behind.id].every((id) =>
          about(seen, id).some((e) => e.detail.status !== TaskStatus.QUEUED),
        ) && about(seen, retried.id).length >= 2,
    );

    expect(events.every((e) => e.source === `tasklane.${name}`)).toBe(true);
    const [succeeded] = about(events, succeeds.id);
    expect(succeeded?.['detail-type']).toBe(LifecycleEventType.SUCCEEDED);
    expect(succeeded?.detail).toMatchObject({
      type: 'ok',
      status: TaskStatus.SUCCEEDED,
      attempt: 1,
      orderingKey: null,
      result: { doubled: 42 },
      resultTruncated: false,
      error: null,
    });
    expect(Date.parse(succeeded?.detail.finishedAt ?? '')).toBeGreaterThanOrEqual(
      Date.parse(succeeded?.detail.startedAt ?? ''),
    );
    expect(about(events, retried.id).map((e) => [e['detail-type'], e.detail.attempt])).toEqual([
      [LifecycleEventType.FAILED, 1],
      [LifecycleEventType.SUCCEEDED, 2],
    ]);
    expect(about(events, retried.id)[0]?.detail.error).toEqual({
      name: 'Error',
      message: 'first attempt fails',
    });
    const [dead] = about(events, dies.id);
    expect(dead?.['detail-type']).toBe(LifecycleEventType.DEAD);
    expect(dead?.detail.error?.message).toBe('cannot ever work');
    const [cancelled] = about(events, behind.id);
    expect(cancelled?.['detail-type']).toBe(LifecycleEventType.CANCELLED);
    expect(cancelled?.detail).toMatchObject({ attempt: 0, startedAt: null, orderingKey: 'k' });
  });
});
