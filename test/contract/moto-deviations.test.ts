/**
 * Pinned deviations: where moto 5.2.1 still differs from AWS after the harness's fixes, in a
 * way a guarantee could depend on. Each test asserts moto's behaviour when the endpoint is
 * moto and AWS's behaviour elsewhere, so a moto upgrade that changes one of them shows up
 * here. docs/emulator.md lists them with what Tasklane does about each.
 */
import {
  CreateScheduleCommand,
  CreateScheduleGroupCommand,
  SchedulerClient,
  UpdateScheduleCommand,
} from '@aws-sdk/client-scheduler';
import { CreateQueueCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import { uniqueName } from '../helpers/aws.js';
import { bodiesOf, createFifoQueue, endpointIsMoto, receiveCount, sqs } from './support.js';

async function refusalOf(call: Promise<unknown>): Promise<string | undefined> {
  return call.then(
    () => undefined,
    (err: unknown) => (err instanceof Error ? err.name : String(err)),
  );
}

describe('SQS deviations', () => {
  it('moto: deduplicates across groups even with DeduplicationScope messageGroup (pinned deviation)', async () => {
    const { url } = await createFifoQueue('scope', {
      visibilityTimeout: 30,
      attributes: { DeduplicationScope: 'messageGroup', FifoThroughputLimit: 'perMessageGroupId' },
    });

    for (const group of ['g1', 'g2']) {
      await sqs.send(
        new SendMessageCommand({
          QueueUrl: url,
          MessageBody: group,
          MessageGroupId: group,
          MessageDeduplicationId: 'same-id',
        }),
      );
    }
    const received = await receiveCount(url, 2, 30, 1_500);

    const expected = (await endpointIsMoto()) ? ['g1'] : ['g1', 'g2'];
    expect(bodiesOf(received).sort()).toEqual(expected);
  });

  it('moto: accepts a MessageRetentionPeriod under 60 seconds (pinned deviation)', async () => {
    const refusal = await refusalOf(
      sqs.send(
        new CreateQueueCommand({
          QueueName: `${uniqueName('retention')}.fifo`,
          Attributes: { FifoQueue: 'true', MessageRetentionPeriod: '10' },
        }),
      ),
    );

    if (await endpointIsMoto()) {
      expect(refusal).toBeUndefined();
    } else {
      expect(refusal).toBeDefined();
    }
  });
});

describe('EventBridge Scheduler deviations', () => {
  const scheduler = new SchedulerClient({ region: 'us-east-1' });
  const anHourAgo = () => new Date(Date.now() - 3_600_000);
  const target = {
    Arn: 'arn:aws:sqs:us-east-1:123456789012:contract.fifo',
    RoleArn: 'arn:aws:iam::123456789012:role/contract',
    SqsParameters: { MessageGroupId: 'g' },
  };

  it('moto: accepts a rate() schedule whose StartDate is an hour ago (pinned deviation)', async () => {
    const group = uniqueName('sched');
    await scheduler.send(new CreateScheduleGroupCommand({ Name: group }));

    const refusal = await refusalOf(
      scheduler.send(
        new CreateScheduleCommand({
          Name: 'hourly',
          GroupName: group,
          ScheduleExpression: 'rate(1 hour)',
          StartDate: anHourAgo(),
          FlexibleTimeWindow: { Mode: 'OFF' },
          Target: target,
        }),
      ),
    );

    if (await endpointIsMoto()) {
      expect(refusal).toBeUndefined();
    } else {
      expect(refusal).toBe('ValidationException');
    }
  });

  it('moto: never checks StartDate on UpdateSchedule (pinned deviation)', async () => {
    const group = uniqueName('sched');
    await scheduler.send(new CreateScheduleGroupCommand({ Name: group }));
    const schedule = {
      Name: 'nightly',
      GroupName: group,
      ScheduleExpression: 'cron(0 2 * * ? *)',
      FlexibleTimeWindow: { Mode: 'OFF' as const },
      Target: target,
    };
    await scheduler.send(new CreateScheduleCommand(schedule));

    const refusal = await refusalOf(
      scheduler.send(new UpdateScheduleCommand({ ...schedule, StartDate: anHourAgo() })),
    );

    if (await endpointIsMoto()) {
      expect(refusal).toBeUndefined();
    } else {
      expect(refusal).toBe('ValidationException');
    }
  });
});
