import type { SQSClient } from '@aws-sdk/client-sqs';
import { AwsService, toConfigurationError } from '../aws/faults.js';
import { loadSqs } from '../aws/sdk.js';
import { Defaults, TaskStatus } from '../core/constants.js';
import type { ConfigurationError } from '../core/errors.js';
import { taskMessage } from '../core/message.js';
import type { TaskRecord } from '../core/record.js';
import type { TaskLogger } from '../observability/logger.js';
import { LaneQueues } from '../settings/lanes.js';
import { EnvVars } from '../settings/location.js';

/**
 * The second half of the outbox: sends a PENDING task's message. Used by enqueue, the
 * sweeper and redrive alike. The task stays PENDING, sent or not: no write records the send
 * (docs/adr/0020-claim-without-pre-read.md). The claim accepts PENDING, and the sweeper
 * sends a PENDING task again once it is older than a grace period, with a per-task backoff;
 * so a send that failed is repaired, and one that worked costs at most a redundant message,
 * which SQS deduplicates within 5 minutes and the claim absorbs after that.
 *
 * A send that fails for a permanent reason (the queue does not exist, access denied, the
 * endpoint does not answer, no region; see `classifyAwsError`) throws a ConfigurationError
 * instead of reporting "not sent": waiting cannot fix it. The record stays PENDING all the
 * same, so once the configuration is fixed the sweeper (or a re-enqueue of the same id)
 * sends it (docs/adr/0011-configuration-errors-throw.md).
 */
export class Dispatcher {
  private readonly queues: LaneQueues;

  /**
   * @param queues the work queue's URL, or every lane's queues: each task goes to its
   *   record's lane (docs/adr/0028-lanes.md).
   */
  constructor(
    private readonly sqs: SQSClient,
    queues: string | LaneQueues,
    private readonly logger: TaskLogger,
  ) {
    this.queues = typeof queues === 'string' ? new LaneQueues({ queueUrl: queues }) : queues;
  }

  /**
   * Sends one task to its lane's queue. Returns its record (unchanged), or undefined if the
   * send failed.
   *
   * @throws UnknownLaneError when the record's lane is not one this dispatcher knows.
   */
  async send(record: TaskRecord): Promise<TaskRecord | undefined> {
    const queueUrl = this.queueUrlOf(record);
    try {
      const { SendMessageCommand } = await loadSqs();
      await this.sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, ...taskMessage(record) }));
    } catch (err) {
      const permanent = await this.permanentFault(err, [record], queueUrl);
      if (permanent !== undefined) throw permanent;
      this.logger.warn('send failed; the task stays PENDING for the sweeper', {
        taskId: record.id,
        error: (err as Error).message,
      });
      return undefined;
    }
    return record;
  }

  /**
   * Sends one task's message for a caller with no outbox behind it: a delayed task that is
   * due, sent now instead of through a schedule, whose caller rolls the record back when the
   * send fails. Permanent faults are classified as {@link send} classifies them.
   *
   * @throws ConfigurationError when the send failed permanently; the SDK's error when it
   *   failed transiently; UnknownLaneError when the record's lane is not one this dispatcher
   *   knows.
   */
  async sendNow(record: TaskRecord): Promise<void> {
    const queueUrl = this.queueUrlOf(record);
    try {
      const { SendMessageCommand } = await loadSqs();
      await this.sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, ...taskMessage(record) }));
    } catch (err) {
      throw (await this.permanentFault(err, [record], queueUrl)) ?? err;
    }
  }

  /**
   * Sends tasks with SendMessageBatch, 10 at a time, in the given order (so tasks sharing a
   * message group keep their order). Once a task's send fails, the later tasks of its message
   * group are not sent either: they stay PENDING behind it, and the sweeper sends them all in
   * enqueue order, so none overtakes it. (A failed entry cannot hold back the later entries of
   * its group in the same SendMessageBatch call: SQS may accept those in that call.)
   * Returns, per input index, the record (unchanged) where the task was sent, or undefined
   * where it was not. Each task goes to its lane's queue; a task of a lane this dispatcher
   * does not know is not sent (and logged), and stays PENDING.
   *
   * @throws ConfigurationError when a send fails permanently; the tasks before it were sent.
   */
  async sendAll(records: readonly TaskRecord[]): Promise<(TaskRecord | undefined)[]> {
    const sent: (TaskRecord | undefined)[] = new Array(records.length).fill(undefined);
    // Each lane is its own queue, sent in the given order; message groups never span lanes.
    const { groups, unknown } = this.byLane(records);
    for (const [queueUrl, indexes] of groups) {
      const laneSent = await this.sendAllTo(
        queueUrl,
        indexes.map((i) => records[i] as TaskRecord),
      );
      indexes.forEach((index, n) => {
        sent[index] = laneSent[n];
      });
    }
    if (unknown.length > 0) {
      // Not thrown: the other lanes' tasks are sent. These stay PENDING for a sweeper (or a
      // client) configured with every lane.
      this.logger.error('tasks of a lane this process does not know were not sent', {
        taskIds: unknown.slice(0, 10).map((i) => records[i]?.id),
        lanes: [...new Set(unknown.map((i) => records[i]?.lane))],
        known: this.queues.names(),
      });
    }
    return sent;
  }

  private async sendAllTo(
    queueUrl: string,
    records: readonly TaskRecord[],
  ): Promise<(TaskRecord | undefined)[]> {
    const sent: (TaskRecord | undefined)[] = new Array(records.length).fill(undefined);
    let sentCount = 0;
    const blocked = new Set<string>();
    let permanent: ConfigurationError | undefined;
    for (let i = 0; i < records.length && permanent === undefined; i += Defaults.SQS_BATCH_SIZE) {
      const chunk = records
        .slice(i, i + Defaults.SQS_BATCH_SIZE)
        .map((record, n) => ({ record, index: i + n }))
        .filter(({ record }) => !blocked.has(record.messageGroupId));
      if (chunk.length === 0) continue;
      const outcome = await this.sendChunk(
        queueUrl,
        chunk.map((c) => c.record),
      );
      if (outcome instanceof Error) {
        permanent = outcome;
        break;
      }
      const failed = outcome;
      chunk.forEach(({ record, index }, n) => {
        if (failed.has(n)) {
          blocked.add(record.messageGroupId);
        } else {
          sent[index] = record;
          sentCount += 1;
        }
      });
    }
    if (blocked.size > 0) {
      this.logger.warn('held back the later tasks of message groups whose send failed', {
        groups: blocked.size,
        tasks: records.length - sentCount,
      });
    }
    if (permanent !== undefined) throw permanent;
    return sent;
  }

  /**
   * Sends up to 10 tasks in one SendMessageBatch, in the given order. Returns, per input
   * index, the record (unchanged) where the task was sent or undefined where it was not,
   * and the ConfigurationError when the call failed permanently (then nothing was sent).
   * Ordering across calls is the caller's business: the pipelined enqueueBatch orders calls
   * that share a message group.
   */
  async sendBatch(records: readonly TaskRecord[]): Promise<{
    sent: (TaskRecord | undefined)[];
    permanent?: ConfigurationError;
  }> {
    const sent: (TaskRecord | undefined)[] = new Array(records.length).fill(undefined);
    let permanent: ConfigurationError | undefined;
    const { groups, unknown } = this.byLane(records);
    if (unknown.length > 0) this.queueUrlOf(records[unknown[0] as number] as TaskRecord);
    for (const [queueUrl, indexes] of groups) {
      const outcome = await this.sendChunk(
        queueUrl,
        indexes.map((i) => records[i] as TaskRecord),
      );
      if (outcome instanceof Error) {
        permanent ??= outcome;
        continue;
      }
      indexes.forEach((index, n) => {
        if (!outcome.has(n)) sent[index] = records[index];
      });
    }
    return permanent === undefined ? { sent } : { sent, permanent };
  }

  /** The queue URL of the record's lane. @throws UnknownLaneError */
  private queueUrlOf(record: TaskRecord): string {
    return this.queues.queueUrl(record.lane, `Task '${record.id}' (type '${record.type}')`);
  }

  /**
   * The records' indexes grouped by their lane's queue, each group in the given order, and
   * the indexes of records whose lane is unknown.
   */
  private byLane(records: readonly TaskRecord[]): {
    groups: Map<string, number[]>;
    unknown: number[];
  } {
    const groups = new Map<string, number[]>();
    const unknown: number[] = [];
    records.forEach((record, index) => {
      if (!this.queues.has(record.lane)) {
        unknown.push(index);
        return;
      }
      const url = this.queueUrlOf(record);
      const group = groups.get(url);
      if (group === undefined) groups.set(url, [index]);
      else group.push(index);
    });
    return { groups, unknown };
  }

  /**
   * Sends one SendMessageBatch; returns the indexes of entries that failed, or the
   * ConfigurationError when the call failed permanently.
   */
  private async sendChunk(
    queueUrl: string,
    records: readonly TaskRecord[],
  ): Promise<Set<number> | ConfigurationError> {
    try {
      const { SendMessageBatchCommand } = await loadSqs();
      const out = await this.sqs.send(
        new SendMessageBatchCommand({
          QueueUrl: queueUrl,
          Entries: records.map((record, n) => ({ Id: String(n), ...taskMessage(record) })),
        }),
      );
      for (const failure of out.Failed ?? []) {
        this.logger.warn('batch entry not sent; the task stays PENDING for the sweeper', {
          taskId: records[Number(failure.Id)]?.id,
          code: failure.Code,
        });
      }
      return new Set((out.Failed ?? []).map((f) => Number(f.Id)));
    } catch (err) {
      const permanent = await this.permanentFault(err, records, queueUrl);
      if (permanent !== undefined) return permanent;
      this.logger.warn('batch send failed; the tasks stay PENDING for the sweeper', {
        error: (err as Error).message,
      });
      return new Set(records.map((_, n) => n));
    }
  }

  /** A ConfigurationError for a send that failed permanently; undefined for a transient one. */
  private permanentFault(
    err: unknown,
    records: readonly TaskRecord[],
    queueUrl: string,
  ): Promise<ConfigurationError | undefined> {
    const ids = records.map((r) => r.id);
    const listed = `${ids.slice(0, 3).join(', ')}${ids.length > 3 ? ', …' : ''}`;
    // A due delayed task is sent while it is SCHEDULED; the sweeper repairs it as one.
    const status = records[0]?.status === TaskStatus.SCHEDULED ? 'SCHEDULED' : 'PENDING';
    const which =
      ids.length === 1
        ? `Task '${ids[0]}' is stored ${status}`
        : `Tasks ${listed} are stored ${status}`;
    return toConfigurationError(err, {
      kind: 'queue',
      resource: queueUrl,
      client: this.sqs,
      service: AwsService.SQS,
      setting: `queueUrl (or ${EnvVars.QUEUE_URL})`,
      note: `${which}: once this is fixed, the sweeper sends ${ids.length === 1 ? 'it' : 'them'} (as does enqueueing the same id again).`,
    });
  }
}
