import { App, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { describe, expect, it } from 'vitest';
import { TaskExecutor, type TaskExecutorProps } from '../../src/cdk/index.js';
import { ValidationError } from '../../src/core/errors.js';
import { arnOf, idOf } from '../helpers/infra.js';

const LANES = { bulk: { maxConcurrency: 2, batchSize: 10 }, urgent: { maxConcurrency: 50 } };

function laneStack(props: Partial<TaskExecutorProps> = {}) {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const stack = new Stack(app, 'Laned');
  const executor = new TaskExecutor(stack, 'Executor', {
    workerEntry: 'functions/worker.ts',
    ...props,
  });
  const producer = new Role(stack, 'Producer', {
    assumedBy: new ServicePrincipal('ecs-tasks.amazonaws.com'),
  });
  executor.grantEnqueue(producer);
  executor.grantOperate(producer);
  return { executor, template: Template.fromStack(stack) };
}

const queueId = (template: Template, name: string) =>
  idOf(template, 'AWS::SQS::Queue', { QueueName: name });

describe('TaskExecutor lanes', () => {
  it('creates a FIFO work queue, a DLQ and an event source mapping per lane, with its settings', () => {
    const { template } = laneStack({ lanes: LANES, maxConcurrency: 5 });

    template.resourceCountIs('AWS::SQS::Queue', 7);
    template.resourceCountIs('AWS::Lambda::EventSourceMapping', 3);
    const bulkDlq = queueId(template, 'Laned-bulk-dlq.fifo');
    template.hasResourceProperties('AWS::SQS::Queue', {
      QueueName: 'Laned-bulk-work.fifo',
      FifoQueue: true,
      ContentBasedDeduplication: true,
      DeduplicationScope: 'messageGroup',
      FifoThroughputLimit: 'perMessageGroupId',
      RedrivePolicy: { deadLetterTargetArn: arnOf(bulkDlq), maxReceiveCount: 50 },
    });
    const mapping = (queue: string, batchSize: number, concurrency: number) =>
      template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
        EventSourceArn: arnOf(queueId(template, queue)),
        BatchSize: batchSize,
        ScalingConfig: { MaximumConcurrency: concurrency },
        FunctionResponseTypes: ['ReportBatchItemFailures'],
      });
    mapping('Laned-bulk-work.fifo', 10, 2);
    mapping('Laned-urgent-work.fifo', 10, 50);
    mapping('Laned-work.fifo', 10, 5);
  });

  it('keeps the default lane’s queues, with the same logical ids, and adds nothing without lanes', () => {
    const without = laneStack().template;
    const withLanes = laneStack({ lanes: LANES }).template;

    expect(queueId(withLanes, 'Laned-work.fifo')).toBe(queueId(without, 'Laned-work.fifo'));
    expect(queueId(withLanes, 'Laned-dlq.fifo')).toBe(queueId(without, 'Laned-dlq.fifo'));
    without.resourceCountIs('AWS::SQS::Queue', 3);
    without.resourceCountIs('AWS::Lambda::EventSourceMapping', 1);
    expect(Object.keys(without.findOutputs('*')).filter((k) => k.includes('Lane'))).toEqual([]);
    const env = JSON.stringify(without.findResources('AWS::Lambda::Function'));
    expect(env).not.toContain('TASKLANE_LANE_');
  });

  it('alarms on each lane’s DLQ depth and oldest message, and graphs each lane', () => {
    const { executor, template } = laneStack({ lanes: LANES });

    for (const lane of ['Bulk', 'Urgent']) {
      template.hasResourceProperties('AWS::CloudWatch::Alarm', {
        AlarmName: `tasklane-Laned-${lane}LaneDeadLetterDepth`,
        MetricName: 'ApproximateNumberOfMessagesVisible',
        Threshold: 0,
      });
      template.hasResourceProperties('AWS::CloudWatch::Alarm', {
        AlarmName: `tasklane-Laned-${lane}LaneOldestMessageAge`,
        MetricName: 'ApproximateAgeOfOldestMessage',
      });
    }
    expect([...executor.monitoring.laneAlarms.keys()]).toEqual(['bulk', 'urgent']);
    const dashboard = JSON.stringify(template.findResources('AWS::CloudWatch::Dashboard'));
    expect(dashboard).toContain('Lane bulk');
    expect(dashboard).toContain('Lane urgent');
  });

  it('grants sends to every lane’s queue to producers, the sweeper and the scheduler role, and redrive on every DLQ', () => {
    const { template } = laneStack({ lanes: LANES });

    const works = ['Laned-work.fifo', 'Laned-bulk-work.fifo', 'Laned-urgent-work.fifo'].map((q) =>
      arnOf(queueId(template, q)),
    );
    const dlqs = ['Laned-dlq.fifo', 'Laned-bulk-dlq.fifo', 'Laned-urgent-dlq.fifo'].map((q) =>
      arnOf(queueId(template, q)),
    );
    const statement = (action: unknown, resources: unknown[]) => ({
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Action: action, Resource: Match.arrayWith(resources) }),
        ]),
      },
    });
    // The producer (an inline policy), the sweeper and the scheduler role (managed policies).
    template.hasResourceProperties(
      'AWS::IAM::Policy',
      statement(['sqs:SendMessage', 'sqs:GetQueueAttributes', 'sqs:GetQueueUrl'], works),
    );
    template.hasResourceProperties(
      'AWS::IAM::Policy',
      statement(['sqs:ReceiveMessage', 'sqs:DeleteMessage', 'sqs:ChangeMessageVisibility'], dlqs),
    );
    template.hasResourceProperties('AWS::IAM::ManagedPolicy', statement('sqs:SendMessage', works));
    template.hasResourceProperties(
      'AWS::IAM::ManagedPolicy',
      statement(Match.arrayWith(['sqs:ReceiveMessage', 'sqs:DeleteMessage']), works),
    );
  });

  it('publishes the lanes’ queues as outputs and in the functions’ environment (DLQs in the sweeper’s only: 4 KB)', () => {
    const { template } = laneStack({ lanes: LANES });

    for (const suffix of ['LaneQueueUrls', 'LaneQueueArns', 'LaneDeadLetterQueueUrls']) {
      template.hasOutput(`Executor${suffix}`, { Value: Match.anyValue() });
    }
    template.hasResourceProperties('AWS::Lambda::Function', {
      Environment: {
        Variables: Match.objectLike({
          TASKLANE_LANE_QUEUE_URLS: Match.anyValue(),
          TASKLANE_LANE_QUEUE_ARNS: Match.anyValue(),
        }),
      },
    });
    // Only the sweeper reads the DLQs (its dead-letter pass, docs/adr/0052-running-leaves-the-status-index.md).
    const functions = Object.values(template.findResources('AWS::Lambda::Function'));
    const withDlqs = functions.filter((f) => JSON.stringify(f).includes('TASKLANE_LANE_DLQ_URLS'));
    expect(withDlqs.map((f) => f.Properties.Description)).toEqual([
      'the Tasklane sweeper of Laned',
    ]);
  });

  it('denies other senders on every lane’s queue with restrictSenders', () => {
    const { template } = laneStack({ lanes: LANES, restrictSenders: true });

    for (const queue of ['Laned-work.fifo', 'Laned-bulk-work.fifo', 'Laned-urgent-work.fifo']) {
      template.hasResourceProperties('AWS::SQS::QueuePolicy', {
        Queues: [{ Ref: queueId(template, queue) }],
        PolicyDocument: {
          Statement: Match.arrayWith([
            Match.objectLike({ Sid: 'OnlyTasklaneSenders', Effect: 'Deny' }),
          ]),
        },
      });
    }
  });

  it('refuses bad lanes with a ValidationError naming each problem', () => {
    const build = () =>
      laneStack({
        lanes: {
          Bulk: {},
          slow: { maxConcurrency: 1, batchSize: 11 },
          fast: { maxConcurrency: 20 },
        },
        reservedConcurrency: 25,
      });

    expect(build).toThrow(ValidationError);
    try {
      build();
    } catch (err) {
      expect((err as ValidationError).issues.map((i) => i.path).sort()).toEqual([
        'lanes.Bulk',
        'lanes.slow.batchSize',
        'lanes.slow.maxConcurrency',
        'reservedConcurrency',
      ]);
    }
  });

  it('refuses more than 10 lanes', () => {
    const lanes = Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`lane${i}`, {}]));

    expect(() => laneStack({ lanes })).toThrow(/at most 10 lanes/);
  });
});
