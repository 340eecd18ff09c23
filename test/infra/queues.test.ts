import { Duration } from 'aws-cdk-lib';
import { Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { arnOf, exampleTemplate, idOf } from '../helpers/infra.js';

describe('TaskExecutor queues', () => {
  const template = exampleTemplate();

  it('makes the work queue high-throughput FIFO with content-based deduplication', () => {
    template.hasResourceProperties('AWS::SQS::Queue', {
      QueueName: 'TasklaneExample-work.fifo',
      FifoQueue: true,
      ContentBasedDeduplication: true,
      DeduplicationScope: 'messageGroup',
      FifoThroughputLimit: 'perMessageGroupId',
      MessageRetentionPeriod: 1_209_600,
    });
  });

  it('redrives the work queue into a FIFO DLQ after maxReceiveCount receives', () => {
    const dlq = idOf(template, 'AWS::SQS::Queue', {
      QueueName: 'TasklaneExample-dlq.fifo',
      FifoQueue: true,
    });

    template.hasResourceProperties('AWS::SQS::Queue', {
      QueueName: 'TasklaneExample-work.fifo',
      RedrivePolicy: { deadLetterTargetArn: arnOf(dlq), maxReceiveCount: 50 },
    });
  });

  it('keeps maxReceiveCount a safety net above maxAttempts', () => {
    const custom = exampleTemplate({ executor: { maxAttempts: 10, maxReceiveCount: 11 } });

    custom.hasResourceProperties('AWS::SQS::Queue', {
      QueueName: 'TasklaneExample-work.fifo',
      RedrivePolicy: Match.objectLike({ maxReceiveCount: 11 }),
    });
  });

  it('turns on SSE for every queue', () => {
    const queues = template.findResources('AWS::SQS::Queue');

    expect(Object.keys(queues)).toHaveLength(3);
    for (const queue of Object.values(queues)) {
      expect(queue.Properties.SqsManagedSseEnabled).toBe(true);
    }
  });

  it('denies every request to every queue that is not over TLS (enforceSSL)', () => {
    const policies = template.findResources('AWS::SQS::QueuePolicy', {
      Properties: {
        PolicyDocument: {
          Statement: Match.arrayWith([
            Match.objectLike({
              Effect: 'Deny',
              Action: 'sqs:*',
              Principal: { AWS: '*' },
              Condition: { Bool: { 'aws:SecureTransport': 'false' } },
            }),
          ]),
        },
      },
    });

    expect(Object.keys(policies)).toHaveLength(3);
  });

  it('gives schedule deliveries a standard DLQ, since Scheduler accepts no FIFO DLQ', () => {
    template.hasResourceProperties('AWS::SQS::Queue', {
      QueueName: 'TasklaneExample-schedule-dlq',
      FifoQueue: Match.absent(),
      SqsManagedSseEnabled: true,
    });
  });
});

describe('TaskExecutor visibility and timeout', () => {
  it('sets the visibility timeout to 6 × the worker timeout', () => {
    const template = exampleTemplate({ executor: { workerTimeout: Duration.minutes(2) } });

    template.hasResourceProperties('AWS::Lambda::Function', {
      Description: Match.stringLikeRegexp('worker'),
      Timeout: 120,
    });
    template.hasResourceProperties('AWS::SQS::Queue', {
      QueueName: 'TasklaneExample-work.fifo',
      VisibilityTimeout: 720,
    });
  });

  it('accepts a longer visibility timeout', () => {
    const template = exampleTemplate({ executor: { visibilityTimeout: Duration.hours(1) } });

    template.hasResourceProperties('AWS::SQS::Queue', {
      QueueName: 'TasklaneExample-work.fifo',
      VisibilityTimeout: 3600,
    });
  });
});
