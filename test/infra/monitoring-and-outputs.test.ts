import { App, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { describe, expect, it } from 'vitest';
import { TaskExecutor } from '../../src/cdk/index.js';
import { arnOf, exampleTemplate, idOf } from '../helpers/infra.js';

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

  it('alarms when any task is declared DEAD, from the EMF metric of the worker and sweeper', () => {
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      AlarmName: 'tasklane-TasklaneExample-DeadTasks',
      Namespace: 'Tasklane',
      MetricName: 'TasksDead',
      Dimensions: [{ Name: 'service', Value: 'tasklane-TasklaneExample' }],
      Statistic: 'Sum',
      Period: 60,
      ComparisonOperator: 'GreaterThanThreshold',
      Threshold: 0,
      // No EMF is published while nothing happens.
      TreatMissingData: 'notBreaching',
    });
  });

  it('alarms when the sweeper has not run for 5 minutes, counting no data as not run', () => {
    const sweeper = idOf(template, 'AWS::Lambda::Function', {
      Description: 'the Tasklane sweeper of TasklaneExample',
    });

    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      AlarmName: 'tasklane-TasklaneExample-SweeperNotRunning',
      Namespace: 'AWS/Lambda',
      MetricName: 'Invocations',
      Dimensions: [{ Name: 'FunctionName', Value: { Ref: sweeper } }],
      Statistic: 'Sum',
      Period: 300,
      ComparisonOperator: 'LessThanThreshold',
      Threshold: 1,
      // A deleted or disabled schedule leaves no datapoint at all.
      TreatMissingData: 'breaching',
    });
  });

  it('publishes metrics under the service name the alarm reads', () => {
    template.hasResourceProperties('AWS::Lambda::Function', {
      Description: 'the Tasklane worker of TasklaneExample',
      Environment: {
        Variables: Match.objectLike({ POWERTOOLS_SERVICE_NAME: 'tasklane-TasklaneExample' }),
      },
    });
  });

  it('has no alarm actions unless given', () => {
    for (const alarm of Object.values(template.findResources('AWS::CloudWatch::Alarm'))) {
      expect(alarm.Properties.AlarmActions).toBeUndefined();
    }
  });

  it('sends alarm and OK notifications to the given actions', () => {
    const stack = new Stack(new App({ context: { 'aws:cdk:bundling-stacks': [] } }), 'Alarmed');
    const topic = new Topic(stack, 'Pager');
    new TaskExecutor(stack, 'Executor', {
      workerEntry: 'functions/worker.ts',
      alarmActions: [new SnsAction(topic)],
    });

    const template = Template.fromStack(stack);

    const alarms = Object.values(template.findResources('AWS::CloudWatch::Alarm'));
    expect(alarms).toHaveLength(8);
    for (const alarm of alarms) {
      expect(alarm.Properties.AlarmActions).toEqual([{ Ref: expect.any(String) }]);
      expect(alarm.Properties.OKActions).toEqual(alarm.Properties.AlarmActions);
    }
  });

  it('draws a dashboard with the task outcomes, timings and the DEAD and sweeper alarms', () => {
    const [dashboard] = Object.values(
      template.findResources('AWS::CloudWatch::Dashboard', {
        Properties: { DashboardName: 'tasklane-TasklaneExample' },
      }),
    );

    // The body is a JSON document joined with references.
    const body = JSON.stringify(dashboard?.Properties.DashboardBody);

    for (const name of [
      'TasksStarted',
      'TasksSucceeded',
      'TasksFailed',
      'TasksRetried',
      'TasksDead',
      'TaskDuration',
      'QueueLatency',
      'tasklane-TasklaneExample-DeadTasks',
      'tasklane-TasklaneExample-SweeperNotRunning',
    ]) {
      expect(body).toContain(name);
    }
  });
});

describe('TaskExecutor dashboard cost graph', () => {
  const template = exampleTemplate();

  it('prices the metered requests and units per million tasks, with the price table in the expression', () => {
    const [dashboard] = Object.values(
      template.findResources('AWS::CloudWatch::Dashboard', {
        Properties: { DashboardName: 'tasklane-TasklaneExample' },
      }),
    );

    const body = JSON.stringify(dashboard?.Properties.DashboardBody);

    expect(body).toContain('Measured cost per million tasks');
    for (const name of ['MeteredTasks', 'SqsRequests', 'WriteUnits', 'ReadUnits']) {
      expect(body).toContain(name);
    }
    expect(body).toContain('(sqs * 0.5 + wcu * 0.625 + rcu * 0.125) / IF(tasks > 0, tasks, 1)');
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

  it('outputs the schedule group by name and both delivery roles’ ARNs', () => {
    const role = idOf(template, 'AWS::IAM::Role', { Description: 'Delivers recurring schedules' });
    const delayed = idOf(template, 'AWS::IAM::Role', { Description: 'Delivers delayed tasks' });

    template.hasOutput('ExecutorScheduleGroupName', { Value: 'TasklaneExample' });
    template.hasOutput('ExecutorSchedulerRoleArn', { Value: arnOf(role) });
    template.hasOutput('ExecutorDelayedDeliveryRoleArn', { Value: arnOf(delayed) });
  });

  it.each([
    ['ExecutorWorkQueueArn', { QueueName: 'TasklaneExample-work.fifo' }],
    ['ExecutorScheduleDeadLetterQueueArn', { QueueName: 'TasklaneExample-schedule-dlq' }],
  ])('outputs %s, so a TaskClient can schedule from the outputs alone', (key, properties) => {
    template.hasOutput(key, { Value: arnOf(idOf(template, 'AWS::SQS::Queue', properties)) });
  });

  it('outputs the worker function name', () => {
    const worker = idOf(template, 'AWS::Lambda::Function', {
      Description: 'the Tasklane worker of TasklaneExample',
    });

    template.hasOutput('ExecutorWorkerFunctionName', { Value: { Ref: worker } });
  });
});
