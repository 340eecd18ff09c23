/**
 * The faults the feature model injects, all through SDK middleware on clients of the real
 * code (or an injected event publisher), never by changing src/:
 * - a worker process that dies after its n-th write: that write lands, and every later call of
 *   its clients hangs for ever, so its batch is abandoned mid-way with its leases held and its
 *   messages in flight (they come back when the model's clock passes their visibility);
 * - a CreateSchedule held until the model lets it answer, then failed or passed;
 * - an S3 outage of the payload bucket (every call fails, as an unreachable service does);
 * - a producer whose SendMessage fails (the record is written, `sent: false`);
 * - an EventBridge that refuses lifecycle events while its outage lasts.
 */

import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { S3Client } from '@aws-sdk/client-s3';
import type { SchedulerClient } from '@aws-sdk/client-scheduler';
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { LifecycleEvent } from '../../src/events/lifecycle-event.js';
import type { EventPublisher } from '../../src/events/publisher.js';

type Args = { input: object };
type Output = { output: object };
type Next = (args: Args) => Promise<Output>;
type Stack = { add(mw: unknown, options: Record<string, unknown>): void };

const WRITES = new Set([
  'PutItemCommand',
  'UpdateItemCommand',
  'DeleteItemCommand',
  'TransactWriteItemsCommand',
  'BatchWriteItemCommand',
  'SendMessageCommand',
  'SendMessageBatchCommand',
  'ChangeMessageVisibilityCommand',
  'ChangeMessageVisibilityBatchCommand',
  'DeleteMessageCommand',
  'DeleteMessageBatchCommand',
  'PutObjectCommand',
  'CreateScheduleCommand',
  'DeleteScheduleCommand',
]);

function injected(name: string, message: string): Error {
  return Object.assign(new Error(message), {
    name,
    $fault: 'server',
    $metadata: { httpStatusCode: 503 },
  });
}

function stackOf(client: { middlewareStack: unknown }): Stack {
  return client.middlewareStack as Stack;
}

/**
 * One worker process's death: after `afterWrites` writes (0: before its first), every call
 * hangs. `died` resolves when it happens; `writes` names the writes that landed.
 */
export class WorkerDeath {
  readonly writes: string[] = [];
  dead = false;
  private signal: () => void = () => undefined;
  readonly died = new Promise<void>((resolve) => {
    this.signal = resolve;
  });

  constructor(private readonly afterWrites: number | undefined) {}

  /** Adds the death to a client of the worker; returns the client. */
  attach<C extends DynamoDBClient | SQSClient | S3Client>(client: C): C {
    stackOf(client).add(
      (next: Next, context: { commandName?: string }) =>
        async (args: Args): Promise<Output> => {
          if (this.dead) return new Promise<Output>(() => undefined);
          const command = context.commandName ?? '';
          if (!WRITES.has(command)) return next(args);
          if (this.afterWrites !== undefined && this.writes.length >= this.afterWrites) {
            this.die();
            return new Promise<Output>(() => undefined);
          }
          const out = await next(args);
          this.writes.push(command.replace(/Command$/, ''));
          if (this.afterWrites !== undefined && this.writes.length >= this.afterWrites) {
            this.die();
            return new Promise<Output>(() => undefined);
          }
          return out;
        },
      { step: 'initialize', priority: 'high', name: 'workerDeath' },
    );
    return client;
  }

  private die(): void {
    if (this.dead) return;
    this.dead = true;
    this.signal();
  }
}

/** The name of the error a failing CreateSchedule throws (Scheduler's throttling). */
export const SCHEDULE_FAULT = 'ThrottlingException';

/** A CreateSchedule that waits for the model to let it answer. */
export interface HeldSchedule {
  /** Resolves once the call has reached the scheduler. */
  readonly reached: Promise<void>;
  /** Lets the call answer: fails it, or sends it on. */
  settle(fail: boolean): void;
}

/**
 * Holds and fails CreateSchedule calls of `client` as the model says: `next` is what the next
 * CreateSchedule does (`fail` at once, `hold` until settled, or pass).
 */
export class SchedulerFaults {
  private plan: { fail: boolean; hold: HeldSchedule | undefined } | undefined;
  failed = 0;

  attach(client: SchedulerClient): SchedulerClient {
    stackOf(client).add(
      (next: Next, context: { commandName?: string }) =>
        async (args: Args): Promise<Output> => {
          if (context.commandName !== 'CreateScheduleCommand' || this.plan === undefined)
            return next(args);
          const plan = this.plan;
          this.plan = undefined;
          let fail = plan.fail;
          if (plan.hold !== undefined) fail = await (plan.hold as InternalHold).wait();
          if (!fail) return next(args);
          this.failed += 1;
          throw injected(SCHEDULE_FAULT, 'Rate exceeded (injected by the model test)');
        },
      { step: 'initialize', priority: 'high', name: 'schedulerFaults' },
    );
    return client;
  }

  /** The next CreateSchedule fails (`fail`), after being held when `hold`. */
  arm(fail: boolean, hold: boolean): HeldSchedule | undefined {
    const held = hold ? new InternalHold() : undefined;
    this.plan = { fail, hold: held };
    return held;
  }

  /** Forgets a plan no call used (the enqueue needed no schedule). */
  disarm(): void {
    this.plan = undefined;
  }
}

class InternalHold implements HeldSchedule {
  private arrive: () => void = () => undefined;
  private answer: (fail: boolean) => void = () => undefined;
  readonly reached = new Promise<void>((resolve) => {
    this.arrive = resolve;
  });
  private readonly answered = new Promise<boolean>((resolve) => {
    this.answer = resolve;
  });

  wait(): Promise<boolean> {
    this.arrive();
    return this.answered;
  }

  settle(fail: boolean): void {
    this.answer(fail);
  }
}

/** An on/off switch that fails every call of the clients it is attached to while on. */
export class Outage {
  on = false;
  failed = 0;

  constructor(private readonly name: string) {}

  attach<C extends S3Client | SQSClient>(client: C, commands?: ReadonlySet<string>): C {
    stackOf(client).add(
      (next: Next, context: { commandName?: string }) =>
        async (args: Args): Promise<Output> => {
          const command = context.commandName ?? '';
          if (!this.on || (commands !== undefined && !commands.has(command))) return next(args);
          this.failed += 1;
          throw injected(this.name, `${command} failed: ${this.name} (injected by the model test)`);
        },
      { step: 'initialize', priority: 'high', name: `outage-${this.name}` },
    );
    return client;
  }
}

/** Lifecycle events as EventBridge would take them, refused while `refusing`. */
export class RefusingPublisher implements EventPublisher {
  refusing = false;
  refused = 0;
  /** Accepted events: task id → event detail types, in order. */
  readonly accepted = new Map<string, string[]>();

  async publish(events: readonly LifecycleEvent[]): Promise<readonly boolean[]> {
    return events.map((event) => {
      if (this.refusing) {
        this.refused += 1;
        return false;
      }
      const id = event.detail.taskId;
      this.accepted.set(id, [...(this.accepted.get(id) ?? []), event.detailType]);
      return true;
    });
  }
}
