import { App, Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import { Template as CdkTemplate, Match, type Template } from 'aws-cdk-lib/assertions';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { describe, expect, it } from 'vitest';
import { TaskExecutor } from '../../infra/task-executor.js';
import { exampleTemplate } from '../helpers/infra.js';

/** The logical id of the one resource of `type` whose properties match, found, not written down. */
function idOf(template: Template, type: string, properties: object): string {
  const found = Object.keys(template.findResources(type, { Properties: properties }));
  expect(found).toHaveLength(1);
  return found[0] as string;
}

const arnOf = (id: string) => ({ 'Fn::GetAtt': [id, 'Arn'] });

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
    // Arrange
    const dlq = idOf(template, 'AWS::SQS::Queue', {
      QueueName: 'TasklaneExample-dlq.fifo',
      FifoQueue: true,
    });

    // Assert
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
    // Act
    const template = exampleTemplate({ executor: { workerTimeout: Duration.minutes(2) } });

    // Assert
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

describe('TaskExecutor worker', () => {
  const template = exampleTemplate();

  it('runs the latest Node.js runtime on ARM64, with the table and queue in its environment', () => {
    // Arrange
    const table = idOf(template, 'AWS::DynamoDB::Table', { TableName: 'TasklaneExample-tasks' });
    const queue = idOf(template, 'AWS::SQS::Queue', { QueueName: 'TasklaneExample-work.fifo' });

    // Assert
    template.hasResourceProperties('AWS::Lambda::Function', {
      Description: 'the Tasklane worker of TasklaneExample',
      Runtime: 'nodejs24.x',
      Architectures: ['arm64'],
      Handler: 'index.handler',
      MemorySize: 512,
      Timeout: 60,
      Environment: {
        Variables: Match.objectLike({
          TASKLANE_TABLE_NAME: { Ref: table },
          TASKLANE_QUEUE_URL: { Ref: queue },
        }),
      },
      ReservedConcurrentExecutions: Match.absent(),
    });
  });

  it('maps the work queue with ReportBatchItemFailures, batch size and maxConcurrency', () => {
    // Arrange
    const custom = exampleTemplate({ executor: { batchSize: 5, maxConcurrency: 40 } });
    const queue = idOf(custom, 'AWS::SQS::Queue', { QueueName: 'TasklaneExample-work.fifo' });

    // Assert
    custom.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      EventSourceArn: arnOf(queue),
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      BatchSize: 5,
      ScalingConfig: { MaximumConcurrency: 40 },
    });
  });

  it('reserves concurrency when asked', () => {
    const custom = exampleTemplate({ executor: { reservedConcurrency: 50, maxConcurrency: 50 } });

    custom.hasResourceProperties('AWS::Lambda::Function', {
      Description: Match.stringLikeRegexp('worker'),
      ReservedConcurrentExecutions: 50,
    });
  });

  it('logs to its own log group with a retention', () => {
    // Arrange
    const logs = idOf(template, 'AWS::Logs::LogGroup', {
      LogGroupName: '/tasklane/TasklaneExample/worker',
    });

    // Assert
    template.hasResourceProperties('AWS::Logs::LogGroup', {
      LogGroupName: '/tasklane/TasklaneExample/worker',
      RetentionInDays: 365,
    });
    template.hasResourceProperties('AWS::Lambda::Function', {
      Description: Match.stringLikeRegexp('worker'),
      LoggingConfig: { LogGroup: { Ref: logs } },
    });
  });

  it('may do exactly what the worker calls, through its own managed policy', () => {
    // Arrange
    const table = idOf(template, 'AWS::DynamoDB::Table', { TableName: 'TasklaneExample-tasks' });
    const queue = idOf(template, 'AWS::SQS::Queue', { QueueName: 'TasklaneExample-work.fifo' });
    const logs = idOf(template, 'AWS::Logs::LogGroup', {
      LogGroupName: '/tasklane/TasklaneExample/worker',
    });

    // Assert
    template.hasResourceProperties('AWS::IAM::ManagedPolicy', {
      Description: 'What the Tasklane worker of TasklaneExample may do',
      PolicyDocument: Match.objectEquals({
        Version: '2012-10-17',
        Statement: [
          {
            Effect: 'Allow',
            Action: ['logs:CreateLogStream', 'logs:PutLogEvents'],
            Resource: arnOf(logs),
          },
          {
            Effect: 'Allow',
            Action: ['dynamodb:GetItem', 'dynamodb:UpdateItem'],
            Resource: arnOf(table),
          },
          {
            Effect: 'Allow',
            Action: [
              'sqs:ReceiveMessage',
              'sqs:DeleteMessage',
              'sqs:ChangeMessageVisibility',
              'sqs:GetQueueAttributes',
              'sqs:GetQueueUrl',
            ],
            Resource: arnOf(queue),
          },
        ],
      }),
    });
  });

  it('uses no inline policies and no AWS managed policies', () => {
    template.resourceCountIs('AWS::IAM::Policy', 0);
    for (const role of Object.values(template.findResources('AWS::IAM::Role'))) {
      expect(role.Properties.ManagedPolicyArns).toBeUndefined();
      expect(role.Properties.Policies).toBeUndefined();
    }
  });
});

describe('TaskExecutor table', () => {
  const template = exampleTemplate();

  it('is on-demand with PITR, TTL on expiresAt, and deletion protection', () => {
    template.hasResourceProperties('AWS::DynamoDB::Table', {
      TableName: 'TasklaneExample-tasks',
      BillingMode: 'PAY_PER_REQUEST',
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      TimeToLiveSpecification: { AttributeName: 'expiresAt', Enabled: true },
      DeletionProtectionEnabled: true,
    });
    template.hasResource('AWS::DynamoDB::Table', {
      DeletionPolicy: 'Retain',
      UpdateReplacePolicy: 'Retain',
    });
  });

  it('has the sparse status index keyed by statusShard and statusAt', () => {
    template.hasResourceProperties('AWS::DynamoDB::Table', {
      KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
      GlobalSecondaryIndexes: [
        {
          IndexName: 'byStatus',
          KeySchema: [
            { AttributeName: 'statusShard', KeyType: 'HASH' },
            { AttributeName: 'statusAt', KeyType: 'RANGE' },
          ],
          Projection: { ProjectionType: 'ALL' },
        },
      ],
    });
  });

  it('lets deletion protection and the removal policy be relaxed for test stacks', () => {
    const custom = exampleTemplate({
      executor: { deletionProtection: false, removalPolicy: RemovalPolicy.DESTROY },
    });

    custom.hasResourceProperties('AWS::DynamoDB::Table', { DeletionProtectionEnabled: false });
    custom.hasResource('AWS::DynamoDB::Table', { DeletionPolicy: 'Delete' });
  });
});

describe('TaskExecutor scheduling', () => {
  const template = exampleTemplate();

  it('creates a schedule group named after the executor', () => {
    template.hasResourceProperties('AWS::Scheduler::ScheduleGroup', { Name: 'TasklaneExample' });
  });

  it('lets the scheduler role only send to the work queue (and its DLQ), only for Scheduler', () => {
    // Arrange
    const queue = idOf(template, 'AWS::SQS::Queue', { QueueName: 'TasklaneExample-work.fifo' });
    const dlq = idOf(template, 'AWS::SQS::Queue', { QueueName: 'TasklaneExample-schedule-dlq' });
    const role = idOf(template, 'AWS::IAM::Role', { Description: 'Delivers scheduled tasks' });

    // Assert
    template.hasResourceProperties('AWS::IAM::Role', {
      Description: 'Delivers scheduled tasks',
      AssumeRolePolicyDocument: {
        Statement: [
          {
            Action: 'sts:AssumeRole',
            Effect: 'Allow',
            Principal: { Service: 'scheduler.amazonaws.com' },
            Condition: { StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } } },
          },
        ],
      },
    });
    const policies = template.findResources('AWS::IAM::ManagedPolicy', {
      Properties: { Roles: [{ Ref: role }] },
    });
    expect(Object.values(policies).map((p) => p.Properties.PolicyDocument)).toEqual([
      {
        Version: '2012-10-17',
        Statement: [
          { Effect: 'Allow', Action: 'sqs:SendMessage', Resource: [arnOf(queue), arnOf(dlq)] },
        ],
      },
    ]);
  });

  it('starts the sweeper every minute, in the group, with its own role and a DLQ', () => {
    // Arrange
    const sweeper = idOf(template, 'AWS::Lambda::Function', {
      Description: 'the Tasklane sweeper of TasklaneExample',
    });
    const dlq = idOf(template, 'AWS::SQS::Queue', { QueueName: 'TasklaneExample-schedule-dlq' });
    const role = idOf(template, 'AWS::IAM::Role', { Description: 'Starts the sweeper' });

    // Assert
    template.hasResourceProperties('AWS::Scheduler::Schedule', {
      ScheduleExpression: 'rate(1 minute)',
      GroupName: Match.anyValue(),
      State: 'ENABLED',
      Target: {
        Arn: arnOf(sweeper),
        RoleArn: arnOf(role),
        DeadLetterConfig: { Arn: arnOf(dlq) },
        RetryPolicy: Match.anyValue(),
      },
    });
    template.hasResourceProperties('AWS::IAM::ManagedPolicy', {
      Roles: [{ Ref: role }],
      PolicyDocument: Match.objectEquals({
        Version: '2012-10-17',
        Statement: [
          { Effect: 'Allow', Action: 'lambda:InvokeFunction', Resource: arnOf(sweeper) },
          { Effect: 'Allow', Action: 'sqs:SendMessage', Resource: arnOf(dlq) },
        ],
      }),
    });
  });

  it('gives the sweeper one concurrent execution and a DLQ for failed runs', () => {
    const dlq = idOf(template, 'AWS::SQS::Queue', { QueueName: 'TasklaneExample-schedule-dlq' });

    template.hasResourceProperties('AWS::Lambda::Function', {
      Description: 'the Tasklane sweeper of TasklaneExample',
      ReservedConcurrentExecutions: 1,
      DeadLetterConfig: { TargetArn: arnOf(dlq) },
      Runtime: 'nodejs24.x',
      Architectures: ['arm64'],
    });
  });
});

describe('TaskExecutor alarms and dashboard', () => {
  const template = exampleTemplate();

  it('alarms when the DLQ holds any message', () => {
    const dlq = idOf(template, 'AWS::SQS::Queue', { QueueName: 'TasklaneExample-dlq.fifo' });

    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'AWS/SQS',
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [dlq, 'QueueName'] } }],
      Statistic: 'Maximum',
      ComparisonOperator: 'GreaterThanThreshold',
      Threshold: 0,
    });
  });

  it('alarms when the oldest message is older than 15 minutes', () => {
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: 'ApproximateAgeOfOldestMessage',
      ComparisonOperator: 'GreaterThanThreshold',
      Threshold: 900,
    });
  });

  it.each(['Errors', 'Throttles'])('alarms on any worker %s', (metric) => {
    const worker = idOf(template, 'AWS::Lambda::Function', {
      Description: 'the Tasklane worker of TasklaneExample',
    });

    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'AWS/Lambda',
      MetricName: metric,
      Dimensions: [{ Name: 'FunctionName', Value: { Ref: worker } }],
      Statistic: 'Sum',
      Threshold: 0,
    });
  });

  it('has no alarm actions unless given', () => {
    for (const alarm of Object.values(template.findResources('AWS::CloudWatch::Alarm'))) {
      expect(alarm.Properties.AlarmActions).toBeUndefined();
    }
  });

  it('sends alarm and OK notifications to the given actions', () => {
    // Arrange
    const stack = new Stack(new App({ context: { 'aws:cdk:bundling-stacks': [] } }), 'Alarmed');
    const topic = new Topic(stack, 'Pager');
    new TaskExecutor(stack, 'Executor', {
      workerEntry: 'functions/worker.ts',
      alarmActions: [new SnsAction(topic)],
    });

    // Act
    const template = CdkTemplate.fromStack(stack);

    // Assert
    const alarms = Object.values(template.findResources('AWS::CloudWatch::Alarm'));
    expect(alarms).toHaveLength(6);
    for (const alarm of alarms) {
      expect(alarm.Properties.AlarmActions).toEqual([{ Ref: expect.any(String) }]);
      expect(alarm.Properties.OKActions).toEqual(alarm.Properties.AlarmActions);
    }
  });

  it('draws a dashboard', () => {
    template.hasResourceProperties('AWS::CloudWatch::Dashboard', {
      DashboardName: 'tasklane-TasklaneExample',
    });
  });
});

describe('TaskExecutor outputs', () => {
  const template = exampleTemplate();

  it.each([
    ['ExecutorTableName', 'AWS::DynamoDB::Table', { TableName: 'TasklaneExample-tasks' }],
    ['ExecutorWorkQueueUrl', 'AWS::SQS::Queue', { QueueName: 'TasklaneExample-work.fifo' }],
    ['ExecutorDeadLetterQueueUrl', 'AWS::SQS::Queue', { QueueName: 'TasklaneExample-dlq.fifo' }],
  ])('outputs %s', (key, type, properties) => {
    template.hasOutput(key, { Value: { Ref: idOf(template, type, properties) } });
  });

  it('outputs the schedule group by name and the scheduler role ARN', () => {
    const role = idOf(template, 'AWS::IAM::Role', { Description: 'Delivers scheduled tasks' });

    template.hasOutput('ExecutorScheduleGroupName', { Value: 'TasklaneExample' });
    template.hasOutput('ExecutorSchedulerRoleArn', { Value: arnOf(role) });
  });

  it('outputs the worker function name', () => {
    const worker = idOf(template, 'AWS::Lambda::Function', {
      Description: 'the Tasklane worker of TasklaneExample',
    });

    template.hasOutput('ExecutorWorkerFunctionName', { Value: { Ref: worker } });
  });
});

describe('TaskExecutor grants', () => {
  function granted(grant: (executor: TaskExecutor, role: Role) => void) {
    const stack = new Stack(new App({ context: { 'aws:cdk:bundling-stacks': [] } }), 'Grants');
    const executor = new TaskExecutor(stack, 'Executor', { workerEntry: 'functions/worker.ts' });
    const role = new Role(stack, 'Producer', {
      assumedBy: new ServicePrincipal('ecs-tasks.amazonaws.com'),
    });
    grant(executor, role);
    return CdkTemplate.fromStack(stack);
  }

  it('grantEnqueue allows writing records, sending messages and creating schedules', () => {
    // Act
    const template = granted((executor, role) => executor.grantEnqueue(role));

    // Assert
    const table = idOf(template, 'AWS::DynamoDB::Table', { TableName: 'Grants-tasks' });
    const queue = idOf(template, 'AWS::SQS::Queue', { QueueName: 'Grants-work.fifo' });
    const schedulerRole = idOf(template, 'AWS::IAM::Role', {
      Description: 'Delivers scheduled tasks',
    });
    template.hasResourceProperties('AWS::IAM::Policy', {
      PolicyDocument: {
        Statement: [
          {
            Effect: 'Allow',
            Action: ['dynamodb:PutItem', 'dynamodb:UpdateItem'],
            Resource: arnOf(table),
          },
          {
            Effect: 'Allow',
            Action: ['sqs:SendMessage', 'sqs:GetQueueAttributes', 'sqs:GetQueueUrl'],
            Resource: arnOf(queue),
          },
          {
            Effect: 'Allow',
            Action: ['scheduler:CreateSchedule', 'scheduler:DeleteSchedule'],
            Resource: {
              'Fn::Join': ['', Match.arrayWith([Match.stringLikeRegexp(':schedule/Grants/\\*$')])],
            },
          },
          {
            Effect: 'Allow',
            Action: 'iam:PassRole',
            Resource: arnOf(schedulerRole),
            Condition: { StringEquals: { 'iam:PassedToService': 'scheduler.amazonaws.com' } },
          },
        ],
      },
    });
  });

  it('grantRead allows reading records and querying the status index', () => {
    // Act
    const template = granted((executor, role) => executor.grantRead(role));

    // Assert
    const table = idOf(template, 'AWS::DynamoDB::Table', { TableName: 'Grants-tasks' });
    template.hasResourceProperties('AWS::IAM::Policy', {
      PolicyDocument: {
        Statement: [
          { Effect: 'Allow', Action: 'dynamodb:GetItem', Resource: arnOf(table) },
          {
            Effect: 'Allow',
            Action: 'dynamodb:Query',
            Resource: [arnOf(table), { 'Fn::Join': ['', [arnOf(table), '/index/byStatus']] }],
          },
        ],
      },
    });
  });
});

describe('TaskExecutor metrics', () => {
  const stack = new Stack(new App({ context: { 'aws:cdk:bundling-stacks': [] } }), 'Metrics');
  const executor = new TaskExecutor(stack, 'Executor', { workerEntry: 'functions/worker.ts' });

  it.each([
    ['metricDeadLetterDepth', 'AWS/SQS', 'ApproximateNumberOfMessagesVisible', 'Maximum'],
    ['metricOldestMessageAge', 'AWS/SQS', 'ApproximateAgeOfOldestMessage', 'Maximum'],
    ['metricWorkerErrors', 'AWS/Lambda', 'Errors', 'Sum'],
  ] as const)('%s reads %s %s (%s)', (method, namespace, metricName, statistic) => {
    const metric = executor[method]();

    expect(metric).toMatchObject({ namespace, metricName, statistic });
  });

  it('passes metric options through', () => {
    expect(executor.metricWorkerErrors({ period: Duration.minutes(1) }).period.toMinutes()).toBe(1);
  });
});
