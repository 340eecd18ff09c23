import { SendMessageBatchCommand, SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { AwsService, toConfigurationError } from '../aws-errors.js';
import { EnvVars } from '../config.js';
import { Defaults } from '../constants.js';
import type { ConfigurationError } from '../errors.js';
import { taskMessage } from '../message.js';
import type { TaskLogger } from '../observability/logger.js';
import type { TaskRecord } from '../store/record.js';

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
  constructor(
    private readonly sqs: SQSClient,
    private readonly queueUrl: string,
    private readonly logger: TaskLogger,
  ) {}

  /** Sends one task. Returns its record (unchanged), or undefined if the send failed. */
  async send(record: TaskRecord): Promise<TaskRecord | undefined> {
    try {
      await this.sqs.send(
        new SendMessageCommand({ QueueUrl: this.queueUrl, ...taskMessage(record) }),
      );
    } catch (err) {
      const permanent = await this.permanentFault(err, [record]);
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
   * Sends tasks with SendMessageBatch, 10 at a time, in the given order (so tasks sharing a
   * message group keep their order). Once a task's send fails, the later tasks of its message
   * group are not sent either: they stay PENDING behind it, and the sweeper sends them all in
   * enqueue order, so none overtakes it. (A failed entry cannot hold back the later entries of
   * its group in the same SendMessageBatch call: SQS may accept those in that call.)
   * Returns, per input index, the record (unchanged) where the task was sent, or undefined
   * where it was not.
   *
   * @throws ConfigurationError when a send fails permanently; the tasks before it were sent.
   */
  async sendAll(records: readonly TaskRecord[]): Promise<(TaskRecord | undefined)[]> {
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
      const outcome = await this.sendChunk(chunk.map((c) => c.record));
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
    const outcome = await this.sendChunk(records);
    if (outcome instanceof Error) return { sent: records.map(() => undefined), permanent: outcome };
    return { sent: records.map((record, n) => (outcome.has(n) ? undefined : record)) };
  }

  /**
   * Sends one SendMessageBatch; returns the indexes of entries that failed, or the
   * ConfigurationError when the call failed permanently.
   */
  private async sendChunk(
    records: readonly TaskRecord[],
  ): Promise<Set<number> | ConfigurationError> {
    try {
      const out = await this.sqs.send(
        new SendMessageBatchCommand({
          QueueUrl: this.queueUrl,
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
      const permanent = await this.permanentFault(err, records);
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
  ): Promise<ConfigurationError | undefined> {
    const ids = records.map((r) => r.id);
    const listed = `${ids.slice(0, 3).join(', ')}${ids.length > 3 ? ', …' : ''}`;
    const which =
      ids.length === 1
        ? `Task '${ids[0]}' is stored PENDING`
        : `Tasks ${listed} are stored PENDING`;
    return toConfigurationError(err, {
      kind: 'queue',
      resource: this.queueUrl,
      client: this.sqs,
      service: AwsService.SQS,
      setting: `queueUrl (or ${EnvVars.QUEUE_URL})`,
      note: `${which}: once this is fixed, the sweeper sends ${ids.length === 1 ? 'it' : 'them'} (as does enqueueing the same id again).`,
    });
  }
}
