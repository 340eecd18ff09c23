/**
 * The CDK construct and the emulator's provisioning build from one settings object; these
 * tests show that the synthesized stack says what `provision()` sends to the emulator.
 */
import { Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { DELAYED_SCHEDULE_PREFIXES } from '../../src/cdk/grant-actions.js';
import { delayedScheduleName, scheduleNameProblem } from '../../src/scheduler/names.js';
import { executorSettings, type QueueSettings } from '../../src/settings/executor.js';
import { tableKeyDefinition } from '../../src/store/table.js';
import { exampleTemplate } from '../helpers/infra.js';

/** CreateQueue attributes are strings; CloudFormation takes booleans and numbers. */
function asCloudFormation(attributes: QueueSettings['attributes']): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(attributes).map(([key, value]) => {
      if (value === 'true' || value === 'false') return [key, value === 'true'];
      return [key, /^\d+$/.test(value) ? Number(value) : value];
    }),
  );
}

describe('TaskExecutor and provision() agree', () => {
  const settings = executorSettings({ name: 'TasklaneExample' });
  const template = exampleTemplate();

  it.each([
    ['work queue', settings.workQueue],
    ['DLQ', settings.deadLetterQueue],
    ['schedule DLQ', settings.scheduler.deadLetterQueue],
  ])('on the %s: name and every attribute', (_, queue) => {
    template.hasResourceProperties('AWS::SQS::Queue', {
      QueueName: queue.name,
      ...asCloudFormation(queue.attributes),
    });
  });

  it('on the redrive maxReceiveCount', () => {
    template.hasResourceProperties('AWS::SQS::Queue', {
      QueueName: settings.workQueue.name,
      RedrivePolicy: Match.objectLike({ maxReceiveCount: settings.maxReceiveCount }),
    });
  });

  it('on the table name, key schema, attribute types and status index', () => {
    const keys = tableKeyDefinition(settings.table);

    template.hasResourceProperties('AWS::DynamoDB::Table', {
      TableName: settings.table.name,
      KeySchema: keys.KeySchema,
      AttributeDefinitions: Match.arrayEquals(keys.AttributeDefinitions),
      GlobalSecondaryIndexes: keys.GlobalSecondaryIndexes,
    });
  });

  it('on the stream, which watch() reads', () => {
    template.hasResourceProperties('AWS::DynamoDB::Table', {
      TableName: settings.table.name,
      StreamSpecification: { StreamViewType: settings.table.streamViewType },
    });
  });

  it('on the TTL attribute', () => {
    template.hasResourceProperties('AWS::DynamoDB::Table', {
      TimeToLiveSpecification: { AttributeName: settings.table.ttlAttribute, Enabled: true },
    });
  });

  it('on the schedule group', () => {
    template.hasResourceProperties('AWS::Scheduler::ScheduleGroup', {
      Name: settings.scheduler.groupName,
    });
  });
});

describe('TaskExecutor and the client agree on delayed tasks’ schedule names', () => {
  const covered = (name: string) =>
    DELAYED_SCHEDULE_PREFIXES.some((prefix) => name.startsWith(prefix));

  it.each([
    ['a plain id', 'order-42'],
    ['an id Scheduler refuses, hashed', 'order/42 with spaces'],
    ['an id too long for a name, hashed', 'x'.repeat(128)],
  ])('the grants’ name prefixes cover %s', (_, id) => {
    const name = delayedScheduleName(id);

    expect(covered(name)).toBe(true);
  });

  it('no recurring schedule name falls under the prefixes', () => {
    expect(scheduleNameProblem('task.nightly')).toMatch(/reserved/);
    expect(scheduleNameProblem('task_nightly')).toMatch(/reserved/);
    expect(covered('nightly')).toBe(false);
  });
});
