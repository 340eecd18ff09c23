import {
  GetScheduleCommand,
  type GetScheduleCommandOutput,
  ResourceNotFoundException,
  type SchedulerClient,
  UpdateScheduleCommand,
  type UpdateScheduleCommandInput,
} from '@aws-sdk/client-scheduler';
import { parseScheduleExpression } from '../scheduler/expression.js';
import { startDateToSend } from '../scheduler/start-date.js';

/**
 * How often an update is written again after another writer undid it, before the last
 * writer is left to win.
 */
export const MAX_WRITE_ATTEMPTS = 5;

/** Reads one schedule; undefined when there is none. */
export async function readSchedule(
  client: SchedulerClient,
  groupName: string,
  name: string,
): Promise<GetScheduleCommandOutput | undefined> {
  try {
    return await client.send(new GetScheduleCommand({ Name: name, GroupName: groupName }));
  } catch (err) {
    if (err instanceof ResourceNotFoundException) return undefined;
    throw err;
  }
}

/**
 * The StartDate an update of `current` sends (see `startDateToSend`): `asked` when given,
 * else the schedule's own, with the rate's anchor taken from its last modification.
 */
export function updateStartDate(
  expressionText: string | undefined,
  asked: Date | undefined,
  current: GetScheduleCommandOutput,
  endDate: Date | undefined,
  now: number,
): Date | undefined {
  const parsed = parseScheduleExpression(expressionText);
  if (!parsed.ok) return undefined;
  const sent = startDateToSend({
    expression: parsed.expression,
    startDate: (asked ?? current.StartDate)?.getTime(),
    anchor: (current.LastModificationDate ?? current.CreationDate)?.getTime(),
    endDate: endDate?.getTime(),
    now,
  });
  return sent === undefined ? undefined : new Date(sent);
}

/** The update that writes `current` back unchanged but for its state. */
export function stateUpdate(
  current: GetScheduleCommandOutput,
  state: 'ENABLED' | 'DISABLED',
  now: number,
): UpdateScheduleCommandInput {
  return {
    Name: current.Name,
    GroupName: current.GroupName,
    ScheduleExpression: current.ScheduleExpression,
    ScheduleExpressionTimezone: current.ScheduleExpressionTimezone,
    FlexibleTimeWindow: current.FlexibleTimeWindow ?? { Mode: 'OFF' },
    Target: current.Target,
    StartDate: updateStartDate(
      current.ScheduleExpression,
      undefined,
      current,
      current.EndDate,
      now,
    ),
    EndDate: current.EndDate,
    Description: current.Description,
    KmsKeyArn: current.KmsKeyArn,
    ActionAfterCompletion: current.ActionAfterCompletion,
    State: state,
  };
}

/**
 * True when a schedule read after a write still holds what was written: expression, zone,
 * target input and message group, description and state. A difference means another
 * writer's UpdateSchedule landed after it.
 */
export function holdsWrite(
  written: UpdateScheduleCommandInput,
  observed: GetScheduleCommandOutput,
): boolean {
  return (
    observed.ScheduleExpression === written.ScheduleExpression &&
    (observed.ScheduleExpressionTimezone ?? 'UTC') ===
      (written.ScheduleExpressionTimezone ?? 'UTC') &&
    observed.Target?.Input === written.Target?.Input &&
    observed.Target?.SqsParameters?.MessageGroupId ===
      written.Target?.SqsParameters?.MessageGroupId &&
    (observed.Description ?? '') === (written.Description ?? '') &&
    (observed.State ?? 'ENABLED') === (written.State ?? 'ENABLED')
  );
}

/**
 * UpdateSchedule replaces a whole schedule and has no condition, so two writers that each
 * read, change one thing and write back can undo each other (a pause reverting a new
 * payload, an update reverting a pause). Each write here is therefore read back, and made
 * again from a fresh read when another writer's change replaced it. What remains is last
 * writer wins for a write whose read, write and read-back all fall between this one's read
 * and write (see docs/scheduling.md).
 *
 * @returns the schedule's ARN, or undefined when it does not exist (or was deleted meanwhile).
 */
export async function writeVerified(
  client: SchedulerClient,
  groupName: string,
  name: string,
  build: (current: GetScheduleCommandOutput) => UpdateScheduleCommandInput,
): Promise<string | undefined> {
  let current = await readSchedule(client, groupName, name);
  for (let attempt = 1; current !== undefined; attempt++) {
    const update = build(current);
    const out = await client.send(new UpdateScheduleCommand(update));
    const after = await readSchedule(client, groupName, name);
    if (after === undefined || holdsWrite(update, after) || attempt >= MAX_WRITE_ATTEMPTS) {
      return out.ScheduleArn ?? current.Arn ?? '';
    }
    current = after;
  }
  return undefined;
}
