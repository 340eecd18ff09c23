import { describe, expect, it } from 'vitest';
import { ConfigurationError } from '../../src/core/errors.js';
import { EnvVars, resolveSchedulerLocation } from '../../src/settings/location.js';

describe('resolveSchedulerLocation', () => {
  const full = {
    scheduleGroup: 'jobs',
    schedulerRoleArn: 'arn:aws:iam::123456789012:role/jobs-scheduler',
    scheduleDeadLetterArn: 'arn:aws:sqs:eu-west-1:123456789012:jobs-schedule-dlq',
  };

  it('takes explicit options first', () => {
    const env = { [EnvVars.SCHEDULE_GROUP]: 'other' };

    expect(resolveSchedulerLocation({ ...full, queueArn: 'arn:q' }, env)).toEqual({
      groupName: 'jobs',
      delayedGroupName: 'jobs.at',
      kmsKeyArn: undefined,
      roleArn: full.schedulerRoleArn,
      // No delayed role given: a stack from before the split has one role for both groups.
      delayedRoleArn: full.schedulerRoleArn,
      deadLetterArn: full.scheduleDeadLetterArn,
      queueArn: 'arn:q',
    });
  });

  it('reads the delayed group and the schedules’ key from the environment', () => {
    const env = {
      [EnvVars.DELAYED_SCHEDULE_GROUP]: 'jobs-later',
      [EnvVars.KMS_KEY_ARN]: 'arn:aws:kms:eu-west-1:123456789012:key/k',
    };

    expect(resolveSchedulerLocation(full, env)).toMatchObject({
      groupName: 'jobs',
      delayedGroupName: 'jobs-later',
      kmsKeyArn: 'arn:aws:kms:eu-west-1:123456789012:key/k',
    });
  });

  it('falls back to the environment, treating empty values as missing', () => {
    const env = {
      [EnvVars.SCHEDULE_GROUP]: 'env-group',
      [EnvVars.SCHEDULER_ROLE_ARN]: 'arn:role',
      [EnvVars.DELAYED_SCHEDULER_ROLE_ARN]: 'arn:delayed-role',
      [EnvVars.SCHEDULE_DLQ_ARN]: 'arn:dlq',
      [EnvVars.QUEUE_ARN]: '',
    };

    expect(resolveSchedulerLocation({ scheduleGroup: '' }, env)).toEqual({
      groupName: 'env-group',
      delayedGroupName: 'env-group.at',
      kmsKeyArn: undefined,
      roleArn: 'arn:role',
      delayedRoleArn: 'arn:delayed-role',
      deadLetterArn: 'arn:dlq',
      queueArn: undefined,
    });
  });

  it('names every missing setting at once', () => {
    const attempt = () => resolveSchedulerLocation({ scheduleGroup: 'jobs' }, {});

    expect(attempt).toThrow(ConfigurationError);
    expect(attempt).toThrow(
      /schedulerRoleArn \(or TASKLANE_SCHEDULER_ROLE_ARN\), scheduleDeadLetterArn \(or TASKLANE_SCHEDULE_DLQ_ARN\)/,
    );
  });
});
