import type { GetScheduleCommandOutput } from '@aws-sdk/client-scheduler';
import { describe, expect, it } from 'vitest';
import { holdsWrite, stateUpdate } from '../../../src/client/schedule-writes.js';

const MINUTE = 60_000;
const NOW = Date.UTC(2026, 10, 30, 19, 0, 30);

const current: GetScheduleCommandOutput = {
  $metadata: {},
  Name: 'every-5',
  GroupName: 'tasks',
  Arn: 'arn:aws:scheduler:us-east-1:123456789012:schedule/tasks/every-5',
  ScheduleExpression: 'rate(5 minutes)',
  ScheduleExpressionTimezone: 'UTC',
  FlexibleTimeWindow: { Mode: 'OFF' },
  Target: {
    Arn: 'arn:aws:sqs:us-east-1:123456789012:tasks.fifo',
    RoleArn: 'arn:aws:iam::123456789012:role/scheduler',
    Input: '{"report":"a"}',
    SqsParameters: { MessageGroupId: 'every-5' },
  },
  StartDate: new Date(Date.UTC(2026, 0, 1, 0, 2, 0)),
  State: 'ENABLED',
};

describe('stateUpdate', () => {
  it('writes the schedule back with the new state and a start on its phase, not in the past', () => {
    const update = stateUpdate(current, 'DISABLED', NOW);

    expect(update).toMatchObject({
      Name: 'every-5',
      GroupName: 'tasks',
      ScheduleExpression: 'rate(5 minutes)',
      Target: current.Target,
      State: 'DISABLED',
      StartDate: new Date(Date.UTC(2026, 10, 30, 19, 2, 0)),
    });
    expect(
      ((update.StartDate?.getTime() ?? 0) - (current.StartDate?.getTime() ?? 0)) % (5 * MINUTE),
    ).toBe(0);
  });
});

describe('holdsWrite', () => {
  const written = stateUpdate(current, 'DISABLED', NOW);

  it('is true when the schedule read back is what was written', () => {
    expect(holdsWrite(written, { ...current, State: 'DISABLED' })).toBe(true);
  });

  it('is false when another writer changed the state or the input since', () => {
    const otherInput = { ...current.Target, Input: '{"report":"b"}' } as typeof current.Target;

    expect(holdsWrite(written, { ...current, State: 'ENABLED' })).toBe(false);
    expect(holdsWrite(written, { ...current, State: 'DISABLED', Target: otherInput })).toBe(false);
    expect(
      holdsWrite(written, { ...current, State: 'DISABLED', ScheduleExpression: 'rate(1 hour)' }),
    ).toBe(false);
  });
});
