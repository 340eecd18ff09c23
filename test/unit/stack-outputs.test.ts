import { describe, expect, it } from 'vitest';
import { ConfigurationError } from '../../src/core/errors.js';
import { resolveSchedulerLocation } from '../../src/settings/location.js';
import { locationFromStackOutputs } from '../../src/settings/stack-outputs.js';

const outputs = {
  ExecutorTableName: 'shop-tasks',
  ExecutorWorkQueueUrl: 'http://localhost:4566/000000000000/shop-work.fifo',
  ExecutorWorkQueueArn: 'arn:aws:sqs:us-east-1:000000000000:shop-work.fifo',
  ExecutorDeadLetterQueueUrl: 'http://localhost:4566/000000000000/shop-dlq.fifo',
  ExecutorScheduleGroupName: 'shop',
  ExecutorSchedulerRoleArn: 'arn:aws:iam::000000000000:role/shop-scheduler',
  ExecutorDelayedDeliveryRoleArn: 'arn:aws:iam::000000000000:role/shop-delayed',
  ExecutorScheduleDeadLetterQueueArn: 'arn:aws:sqs:us-east-1:000000000000:shop-schedule-dlq',
  ExecutorWorkerFunctionName: 'Shop-ExecutorWorker-abc',
};

const expected = {
  tableName: 'shop-tasks',
  queueUrl: 'http://localhost:4566/000000000000/shop-work.fifo',
  queueArn: 'arn:aws:sqs:us-east-1:000000000000:shop-work.fifo',
  deadLetterQueueUrl: 'http://localhost:4566/000000000000/shop-dlq.fifo',
  scheduleGroup: 'shop',
  // A stack from before delayed tasks had a group of their own: the name is derived.
  delayedScheduleGroup: 'shop.at',
  schedulerRoleArn: 'arn:aws:iam::000000000000:role/shop-scheduler',
  delayedSchedulerRoleArn: 'arn:aws:iam::000000000000:role/shop-delayed',
  scheduleDeadLetterArn: 'arn:aws:sqs:us-east-1:000000000000:shop-schedule-dlq',
  workerFunctionName: 'Shop-ExecutorWorker-abc',
};

describe('locationFromStackOutputs', () => {
  it('reads a key → value record, such as one stack of cdk deploy --outputs-file', () => {
    expect(locationFromStackOutputs(outputs)).toEqual(expected);
  });

  it('reads the status shard count when published, and refuses one that is not a count', () => {
    const shards = locationFromStackOutputs({ ...outputs, ExecutorStatusShards: '32' });
    const bad = (() => {
      try {
        return locationFromStackOutputs({ ...outputs, ExecutorStatusShards: 'many' });
      } catch (err) {
        return err;
      }
    })();

    expect(shards).toEqual({ ...expected, statusShards: 32 });
    expect(bad).toBeInstanceOf(ConfigurationError);
    expect((bad as Error).message).toContain('StatusShards is "many", expected a shard count');
  });

  it('reads the delayed tasks’ schedule group and the encryption key when published', () => {
    // Arrange
    const keyArn = 'arn:aws:kms:us-east-1:000000000000:key/abc';
    const withKey = {
      ...outputs,
      ExecutorDelayedScheduleGroup: 'shop-delayed',
      ExecutorEncryptionKeyArn: keyArn,
    };

    // Act
    const location = locationFromStackOutputs(withKey);

    // Assert
    expect(location).toEqual({
      ...expected,
      delayedScheduleGroup: 'shop-delayed',
      scheduleKmsKeyArn: keyArn,
    });
  });

  it("reads DescribeStacks' Outputs array", () => {
    const described = Object.entries(outputs).map(([OutputKey, OutputValue]) => ({
      OutputKey,
      OutputValue,
      Description: 'ignored',
    }));

    const location = locationFromStackOutputs(described);

    expect(location).toEqual(expected);
  });

  it('picks one executor by construct id when the stack has two', () => {
    const two = {
      ...outputs,
      ...Object.fromEntries(
        Object.entries(outputs).map(([key, value]) => [
          key.replace('Executor', 'Reports'),
          `${value}-2`,
        ]),
      ),
    };

    const reports = locationFromStackOutputs(two, 'Reports');

    expect(reports.tableName).toBe('shop-tasks-2');
    expect(reports.queueUrl).toBe(`${expected.queueUrl}-2`);
  });

  it('configures scheduling as it is: every scheduler setting comes from the outputs', () => {
    const location = locationFromStackOutputs(outputs);

    // An empty environment, so nothing can come from TASKLANE_* variables.
    const scheduling = resolveSchedulerLocation(location, {});

    expect(scheduling).toEqual({
      groupName: 'shop',
      delayedGroupName: 'shop.at',
      kmsKeyArn: undefined,
      roleArn: expected.schedulerRoleArn,
      delayedRoleArn: expected.delayedSchedulerRoleArn,
      deadLetterArn: expected.scheduleDeadLetterArn,
      queueArn: expected.queueArn,
    });
  });

  it('strips characters that CloudFormation output keys cannot hold from the construct id', () => {
    expect(locationFromStackOutputs(outputs, 'Exec-utor').tableName).toBe('shop-tasks');
  });

  it('names every missing output at once', () => {
    const read = () =>
      locationFromStackOutputs({ ExecutorTableName: 'shop-tasks', ExecutorWorkQueueUrl: 'q' });

    expect(read).toThrow(ConfigurationError);
    expect(read).toThrow(
      /no output ending in WorkQueueArn; no output ending in DeadLetterQueueUrl; no output ending in ScheduleGroupName; no output ending in SchedulerRoleArn; no output ending in ScheduleDeadLetterQueueArn; no output ending in WorkerFunctionName/,
    );
  });

  it('asks for the construct id when the outputs are ambiguous', () => {
    const two = { ...outputs, OtherTableName: 'other-tasks' };

    expect(() => locationFromStackOutputs(two)).toThrow(
      /several outputs end in TableName \(ExecutorTableName, OtherTableName\); pass the construct id/,
    );
  });
});
