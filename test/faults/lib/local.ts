/**
 * The real local executor (`startLocalExecutor`) over a scenario's resources: its worker
 * behind the event source mapping, its schedule pump (which signs with the scheduler's own
 * credentials, so the emulator stamps the pump's SenderId on firings) and its sweeper. Used
 * by the scenarios about who may send what to the work queue, (p) and (q), and by the
 * runbook's redrive, (r).
 */
import { GetQueueAttributesCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { awsClientConfig } from '../../../src/aws/clients.js';
import { AuditEvent } from '../../../src/core/constants.js';
import { firingTemplate } from '../../../src/core/message.js';
import { type LocalExecutor, startLocalExecutor } from '../../../src/local/local-executor.js';
import { LOCAL_SCHEDULER_SENDER_ID } from '../../../src/local/schedule-pump.js';
import { formatScheduledTime } from '../../../src/scheduler/occurrences.js';
import { REGION } from '../../helpers/aws.js';
import { emulatorEndpoint } from '../../helpers/endpoint.js';
import { recordingLogger } from '../../helpers/executor.js';
import { faultTask, type TaskProfile, type WorkPayload } from './fault-tasks.js';
import type { Scenario } from './scenario.js';

/** A local executor running the fault task, with its audit log and every handler payload. */
export interface LocalRun {
  readonly local: LocalExecutor;
  readonly logger: ReturnType<typeof recordingLogger>;
  /** Each handler call's task id and payload, as the handler saw them. */
  readonly runs: { readonly taskId: string; readonly payload: WorkPayload }[];
}

/**
 * Starts the local executor on the scenario's provisioned resources (scheduling included);
 * `dependency` is what tasks in mode `dependency` call.
 */
export async function startLocalRun(
  s: Scenario,
  profile: TaskProfile,
  options: { readonly dependency?: () => Promise<void> } = {},
): Promise<LocalRun> {
  const scheduling = s.executor.scheduler;
  if (scheduling === undefined) throw new Error('the scenario must be opened with scheduling');
  const logger = recordingLogger();
  const runs: LocalRun['runs'][number][] = [];
  const task = faultTask({
    ledger: s.ledger,
    calls: (entry) => s.calls.record(entry),
    ends: (entry) => s.calls.recordEnd(entry),
    workerId: 'local',
    profile,
    ...(options.dependency === undefined ? {} : { dependency: options.dependency }),
    onCall: (payload, run) => runs.push({ taskId: run.taskId, payload }),
  });
  const local = await startLocalExecutor({
    tasks: [task],
    endpoint: emulatorEndpoint(),
    location: {
      tableName: s.executor.tableName,
      queueUrl: s.executor.queueUrl,
      queueArn: s.executor.queueArn,
      deadLetterQueueUrl: s.executor.deadLetterQueueUrl,
      scheduleGroup: scheduling.scheduleGroup,
      delayedScheduleGroup: scheduling.delayedScheduleGroup,
      schedulerRoleArn: scheduling.schedulerRoleArn,
      scheduleDeadLetterArn: scheduling.scheduleDeadLetterArn,
    },
    log: logger,
    workerTimeoutSeconds: s.options.workerTimeoutSeconds,
    pumpIntervalMs: 500,
    sweepIntervalMs: 2000,
    pendingAgeMs: 5000,
    // The handler's ledger entries name the worker, as the history's claims do.
    worker: { workerId: 'local' },
  });
  return { local, logger, runs };
}

/** An SQS client whose requests are signed with `accessKeyId`: the SenderId of its sends. */
export function sqsSignedBy(accessKeyId: string): SQSClient {
  return new SQSClient({
    ...awsClientConfig(),
    region: REGION,
    endpoint: emulatorEndpoint(),
    useQueueUrlAsEndpoint: false,
    credentials: { accessKeyId, secretAccessKey: 'test' },
  });
}

/** The scheduler's credentials, as the local pump uses them. */
export function schedulerSqs(): SQSClient {
  return sqsSignedBy(LOCAL_SCHEDULER_SENDER_ID);
}

/**
 * A firing's body as Scheduler sends it, its context attributes substituted. The payload is
 * given as JSON text, so that one nested deeper than `JSON.stringify` can go fits in.
 */
export function firingBody(fields: {
  schedule: string;
  type: string;
  payloadJson: string;
  at: number;
  orderingKey?: string;
}): string {
  const { payloadJson, ...rest } = fields;
  const marker = '<payload>';
  return firingTemplate({ ...rest, payload: marker })
    .replace(JSON.stringify(marker), payloadJson)
    .replace('<aws.scheduler.scheduled-time>', formatScheduledTime(fields.at))
    .replace('<aws.scheduler.execution-id>', `forged-${fields.at}-${Math.random()}`)
    .replace('<aws.scheduler.attempt-number>', '1');
}

/** Sends one raw message; returns its SQS message id. */
export async function sendOne(
  sqs: SQSClient,
  queueUrl: string,
  body: string,
  groupId: string,
): Promise<string> {
  const out = await sqs.send(
    new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: body, MessageGroupId: groupId }),
  );
  if (out.MessageId === undefined) throw new Error('SendMessage returned no message id');
  return out.MessageId;
}

/** The `message-rejected` audit of a message, if the worker wrote one. */
export function rejectionOf(run: LocalRun, messageId: string): string | undefined {
  const line = run.logger.lines.find(
    (l) =>
      l.attributes.event === AuditEvent.MESSAGE_REJECTED && l.attributes.messageId === messageId,
  );
  return line === undefined ? undefined : String(line.attributes.detail ?? '');
}

/** Messages in a queue, visible or in flight. */
export async function queueDepth(sqs: SQSClient, queueUrl: string): Promise<number> {
  const out = await sqs.send(
    new GetQueueAttributesCommand({
      QueueUrl: queueUrl,
      AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
    }),
  );
  const attrs = out.Attributes ?? {};
  return (
    Number(attrs.ApproximateNumberOfMessages ?? 0) +
    Number(attrs.ApproximateNumberOfMessagesNotVisible ?? 0)
  );
}
