/**
 * The real side of the model test: the real TaskStore on the emulator, the real processor
 * (createWorker().processBatch with synthetic SQS records), the real sweeper, all on one
 * injected clock that only the commands move. The handler parks every run until a command
 * finishes it, crashes it or heartbeats it.
 */
import { randomUUID } from 'node:crypto';
import type { SQSRecord } from 'aws-lambda';
import { z } from 'zod';
import { TaskClient } from '../../src/client/task-client.js';
import { MESSAGE_SCHEMA_VERSION } from '../../src/core/constants.js';
import type { TaskRecord } from '../../src/core/record.js';
import { silentLogger } from '../../src/observability/logger.js';
import { noopMetrics } from '../../src/observability/metrics.js';
import { RecordWrites } from '../../src/store/record-writes.js';
import { RepairWrites } from '../../src/store/repair-writes.js';
import { SignalStore, signalCount } from '../../src/store/signals.js';
import { TaskStore } from '../../src/store/task-store.js';
import { createSweeper } from '../../src/sweeper/create-sweeper.js';
import { defineTask, type TaskContext } from '../../src/tasks/task-definition.js';
import { createWorker, type Worker } from '../../src/worker/create-worker.js';
import { stubbedSqs } from '../faults/lib/faults.js';
import type { EmulatorExecutor } from '../helpers/executor.js';

export const MODEL_TASK_TYPE = 'model.task';
export const MAX_ATTEMPTS = 3;
const TIMEOUT_MS = 600_000;
const GRACE_MS = 1000;
/** The lease every claim takes: timeout + grace (no automatic heartbeat). */
export const LEASE_MS = TIMEOUT_MS + GRACE_MS;

/** A parked handler run. */
export interface RealRun {
  readonly ctx: TaskContext;
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: Error) => void;
  /** The processBatch call that started it; settles after the outcome is written. */
  batch: Promise<unknown>;
  /** What the run's replay of the task's earlier waits returned, in order. */
  readonly replayed: readonly unknown[];
}

/** A durable call the handler makes, replayed by every later run of the task. */
export interface ScriptedCall {
  readonly kind: 'sleep' | 'signal';
  readonly name: string;
  readonly ms: number;
}

export class RealSystem {
  readonly clock = { now: Date.now() };
  readonly store: TaskStore;
  /** The operator's and producers' client: signal, pause and resume. */
  readonly client: TaskClient;
  /** Per task, the handler's durable calls so far: each new run replays them first. */
  readonly scripts = new Map<number, ScriptedCall[]>();
  private readonly newWorker: (n: number) => Worker;
  private readonly sweeper: { run(): Promise<unknown> };
  private onRun: ((run: RealRun) => void) | undefined;
  /** Model run id → real run. */
  readonly runs = new Map<number, RealRun>();
  prefix = '';

  constructor(executor: EmulatorExecutor) {
    const clock = () => this.clock.now;
    const queueUrl = 'http://stub.invalid/000000000000/model.fifo';
    const sqs = stubbedSqs({
      GetQueueUrl: { QueueUrl: queueUrl },
      // SQS's longest retention: a retry leaves its task off the status index
      // (docs/adr/0068-a-retry-stays-off-the-index.md), and the sweep's scan finds it.
      GetQueueAttributes: { Attributes: { MessageRetentionPeriod: '1209600' } },
      ChangeMessageVisibility: {},
      ChangeMessageVisibilityBatch: { Successful: [], Failed: [] },
      SendMessage: {},
      SendMessageBatch: { Successful: [], Failed: [] },
    });
    const common = {
      tableName: executor.tableName,
      queueUrl,
      dynamodb: executor.clients.dynamodb,
      sqs,
      logger: silentLogger,
      metrics: noopMetrics,
      clock,
    };
    this.store = new TaskStore({ ...common, logger: silentLogger });
    const task = defineTask(MODEL_TASK_TYPE, {
      schema: z.object({ i: z.number() }),
      timeout: TIMEOUT_MS,
      retry: { maxAttempts: MAX_ATTEMPTS, baseDelayMs: 0, maxDelayMs: 0 },
      handler: async (payload, ctx) => {
        // A real handler is deterministic: each run makes the earlier runs' sleeps and waits
        // again, in order, and gets their memos (or, for the one it was woken for, its end).
        const replayed: unknown[] = [];
        for (const call of [...(this.scripts.get(payload.i) ?? [])]) {
          if (call.kind === 'sleep') {
            await ctx.sleep(call.name, call.ms);
            replayed.push(undefined);
          } else {
            replayed.push(await ctx.waitForSignal(call.name, { timeoutMs: call.ms }));
          }
        }
        return new Promise((resolve, reject) => {
          this.onRun?.({ ctx, resolve, reject, batch: Promise.resolve(), replayed });
        });
      },
    });
    // A worker per delivery, as each Lambda invocation is its own process: the takeover gate
    // is shared by one process's batches (ADR 0007), and a run the model has not finished yet
    // would otherwise hold back a takeover delivered to the same worker id forever.
    this.newWorker = (n: number) =>
      createWorker([task], {
        ...common,
        workerId: `model-worker-${n}`,
        leaseGraceMs: GRACE_MS,
        leaseDurationMs: LEASE_MS + 1,
      });
    // The model's sweep repairs every RUNNING task under an expired lease: a message here is
    // synthetic, so a task's message is "gone" whenever no `deliver` brings it back. Since
    // RUNNING left the status index (docs/adr/0052-running-leaves-the-status-index.md), that
    // repair is the DLQ pass's or, with no message anywhere, the running scan's: the sweep
    // here runs with the scan.
    this.sweeper = createSweeper({ ...common, pendingAgeMs: 0, scanRunning: true });
    const { metrics: _metrics, ...clientOptions } = common;
    this.client = new TaskClient(clientOptions);
  }

  /** Starts a new model run: fresh task ids, no runs. */
  reset(runNumber: number): void {
    this.prefix = `m${runNumber}-${randomUUID().slice(0, 8)}`;
    this.runs.clear();
    this.scripts.clear();
  }

  id(task: number): string {
    return `${this.prefix}-t${task}`;
  }

  get(task: number): Promise<TaskRecord | undefined> {
    return this.store.get(this.id(task));
  }

  /** The signals `record`'s task was sent: its signal head's count (ADR 0066), or its record's. */
  async signalsSent(record: TaskRecord): Promise<number> {
    return signalCount(record, await this.store.feature(SignalStore).head(record));
  }

  /**
   * TaskClient.enqueue's outbox, without SQS: create. The send writes nothing (ADR 0020), so a
   * producer that crashed before it (`send` false) leaves the same record as one that sent.
   */
  async enqueue(task: number, _send: boolean): Promise<void> {
    await this.store.feature(RecordWrites).create({
      id: this.id(task),
      type: MODEL_TASK_TYPE,
      payloadJson: JSON.stringify({ i: task }),
      payloadHash: 'model',
      maxAttempts: MAX_ATTEMPTS,
      timeoutMs: TIMEOUT_MS,
      messageGroupId: this.id(task),
    });
  }

  /** Delivers the task's message to a worker; returns the run if the handler started. */
  async deliver(task: number, worker: number): Promise<RealRun | undefined> {
    const entered = new Promise<RealRun>((resolve) => {
      this.onRun = resolve;
    });
    const batch = this.newWorker(worker).processBatch([this.record(task)]);
    const first = await Promise.race([entered, batch.then(() => undefined)]);
    this.onRun = undefined;
    if (first !== undefined) first.batch = batch;
    return first;
  }

  /** TaskClient.cancel, one round. */
  async cancel(task: number): Promise<boolean> {
    const seen = await this.get(task);
    if (seen === undefined) return false;
    try {
      await this.store.feature(RepairWrites).cancel(seen);
      return true;
    } catch {
      return false;
    }
  }

  sweep(): Promise<unknown> {
    return this.sweeper.run();
  }

  private record(task: number): SQSRecord {
    const id = this.id(task);
    return {
      messageId: randomUUID(),
      receiptHandle: `model-${randomUUID()}`,
      body: JSON.stringify({ tasklane: MESSAGE_SCHEMA_VERSION, id, type: MODEL_TASK_TYPE }),
      attributes: {
        ApproximateReceiveCount: '1',
        SentTimestamp: String(this.clock.now),
        SenderId: 'model',
        ApproximateFirstReceiveTimestamp: String(this.clock.now),
        MessageGroupId: id,
      },
      messageAttributes: {},
      md5OfBody: '',
      eventSource: 'aws:sqs',
      eventSourceARN: 'arn:aws:sqs:us-east-1:000000000000:model.fifo',
      awsRegion: 'us-east-1',
    };
  }
}
