import { GetScheduleGroupCommand } from '@aws-sdk/client-scheduler';
import { GetQueueAttributesCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { type AwsCallTarget, AwsService, configurationProblem, endpointOf } from '../aws/faults.js';
import { ConfigurationError, type ConfigurationProblem } from '../core/errors.js';
import type { SchedulerTarget } from '../scheduler/target.js';
import type { LaneQueues } from '../settings/lanes.js';
import { EnvVars, type ExecutorLocation } from '../settings/location.js';
import type { DynamoDBClient } from '../store/table.js';
import type { TaskStore } from '../store/task-store.js';

/** What {@link TaskClient.check} found. */
export interface CheckReport {
  /** True when every resource answered as expected. */
  readonly ok: boolean;
  /** The resources checked, e.g. `table tasks`, `queue https://…`, `schedule group g`. */
  readonly checked: readonly string[];
  /** Every problem found, each naming its resource and endpoint; empty when `ok`. */
  readonly problems: readonly ConfigurationProblem[];
}

/** What a check needs from the client. */
export interface CheckTargets {
  readonly store: TaskStore;
  readonly dynamodb: DynamoDBClient;
  readonly sqs: SQSClient;
  readonly queueUrl: string;
  /** Every lane's queues: the other lanes' work queues are probed like the work queue. */
  readonly lanes?: LaneQueues;
  readonly schedules: SchedulerTarget;
  readonly location: ExecutorLocation;
}

/** A task id no task can have (ids are at most 128 characters), for the table probe. */
const PROBE_ID = `tasklane-check-${'-'.repeat(128)}`;

/**
 * Calls each resource once, all at once, and collects every problem:
 * - the table: a GetItem of an id no task has (needs `dynamodb:GetItem`, as in grantRead);
 * - the queue, and each other lane's: GetQueueAttributes (granted with SendMessage);
 * - the schedule group, when any scheduling setting is given: GetScheduleGroup (needs
 *   `scheduler:GetScheduleGroup`), after checking the scheduling settings are complete.
 *
 * A permanent fault is described as ConfigurationError describes it; any other failure
 * (throttling, a 5xx) is reported too, with the SDK's message, since nothing was verified.
 */
export async function checkExecutor(targets: CheckTargets): Promise<CheckReport> {
  const { store, sqs, queueUrl, schedules } = targets;
  const probes: Promise<ConfigurationProblem | undefined>[] = [
    probe(
      {
        kind: 'table',
        resource: store.tableName,
        client: targets.dynamodb,
        service: AwsService.DYNAMODB,
      },
      () => store.get(PROBE_ID),
    ),
    probe({ kind: 'queue', resource: queueUrl, client: sqs, service: AwsService.SQS }, () =>
      sqs.send(new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['QueueArn'] })),
    ),
  ];
  const checked = [`table ${store.tableName}`, `queue ${queueUrl}`];
  const laneQueueUrls = (targets.lanes?.entries() ?? []).flatMap(([, lane]) =>
    lane.queueUrl === queueUrl ? [] : [lane.queueUrl],
  );
  for (const url of laneQueueUrls) {
    checked.push(`queue ${url}`);
    probes.push(
      probe({ kind: 'queue', resource: url, client: sqs, service: AwsService.SQS }, () =>
        sqs.send(new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['QueueArn'] })),
      ),
    );
  }
  if (schedulingRequested(targets.location)) {
    const group = scheduleGroup(schedules);
    if (group instanceof ConfigurationError) {
      probes.push(Promise.resolve({ message: group.message, cause: group }));
    } else {
      checked.push(`schedule group ${group}`);
      probes.push(
        probe(
          {
            kind: 'schedule group',
            resource: group,
            client: schedules.client,
            service: AwsService.SCHEDULER,
          },
          () => schedules.client.send(new GetScheduleGroupCommand({ Name: group })),
        ),
      );
    }
  }
  const problems = (await Promise.all(probes)).filter(
    (p): p is ConfigurationProblem => p !== undefined,
  );
  return { ok: problems.length === 0, checked, problems };
}

/** One ConfigurationError listing every problem of a report; undefined when it is ok. */
export function reportError(report: CheckReport): ConfigurationError | undefined {
  if (report.ok) return undefined;
  const [first] = report.problems;
  const lines = report.problems.map((p) => `  - ${p.message}`);
  return new ConfigurationError(
    `Tasklane's resources failed their check (${report.problems.length} problem${report.problems.length === 1 ? '' : 's'}):\n${lines.join('\n')}`,
    {
      resource: report.problems.length === 1 ? first?.resource : undefined,
      endpoint: report.problems.length === 1 ? first?.endpoint : undefined,
      problems: report.problems,
      cause: report.problems.length === 1 ? first?.cause : undefined,
    },
  );
}

async function probe(
  target: Omit<AwsCallTarget, 'note'>,
  call: () => Promise<unknown>,
): Promise<ConfigurationProblem | undefined> {
  try {
    await call();
    return undefined;
  } catch (err) {
    const known = await configurationProblem(err, target);
    if (known !== undefined) return known;
    const endpoint = await endpointOf(target.client, target.service);
    const detail = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
    return {
      message: `The ${target.kind} '${target.resource}' at ${endpoint} could not be checked (${detail}).`,
      resource: target.resource,
      endpoint,
      cause: err,
    };
  }
}

/** True when any scheduling setting is given, in the options or the environment. */
function schedulingRequested(location: ExecutorLocation, env = process.env): boolean {
  return [
    location.scheduleGroup,
    location.schedulerRoleArn,
    location.scheduleDeadLetterArn,
    env[EnvVars.SCHEDULE_GROUP],
    env[EnvVars.SCHEDULER_ROLE_ARN],
    env[EnvVars.SCHEDULE_DLQ_ARN],
  ].some((value) => value !== undefined && value !== '');
}

function scheduleGroup(schedules: SchedulerTarget): string | ConfigurationError {
  try {
    return schedules.groupName;
  } catch (err) {
    if (err instanceof ConfigurationError) return err;
    throw err;
  }
}
