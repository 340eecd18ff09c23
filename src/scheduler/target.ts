import type { SchedulerClient, Target } from '@aws-sdk/client-scheduler';
import type { SQSClient } from '@aws-sdk/client-sqs';
import { awsClientConfig } from '../aws/clients.js';
import { clientOnFirstSend, loadScheduler, loadSqs } from '../aws/sdk.js';
import { Defaults } from '../core/constants.js';
import { DEFAULT_LANE, LaneQueues } from '../settings/lanes.js';
import {
  type ExecutorLocation,
  resolveSchedulerLocation,
  type SchedulerLocation,
} from '../settings/location.js';

/**
 * What delayed tasks and recurring schedules share: the Scheduler client, the executor's
 * scheduling settings (resolved on first use, so clients that never schedule need none),
 * and the target every schedule points at, the FIFO work queue.
 */
export class SchedulerTarget {
  private resolved: SchedulerLocation | undefined;
  private queueArn: Promise<string> | undefined;
  /** Lanes' queue ARNs looked up from their URLs, by lane. */
  private readonly laneArns = new Map<string, Promise<string>>();
  private ownClient: SchedulerClient | undefined;

  constructor(
    private readonly options: {
      readonly location: ExecutorLocation;
      readonly sqs: SQSClient;
      readonly queueUrl: string;
      /** Every lane's queues; without it, every schedule targets the work queue. */
      readonly lanes?: LaneQueues | undefined;
      readonly scheduler?: SchedulerClient | undefined;
      /**
       * Makes the client when none was injected. By default one that offers only `send` and
       * loads the SDK on its first (a worker's cold start loads no Scheduler code,
       * src/aws/sdk.ts); the client and the sweeper pass `newSchedulerClient`.
       */
      readonly newClient?: (() => SchedulerClient) | undefined;
    },
  ) {}

  /** The Scheduler client: the injected one, or one made from the environment. */
  get client(): SchedulerClient {
    if (this.options.scheduler !== undefined) return this.options.scheduler;
    this.ownClient ??= (this.options.newClient ?? lazySchedulerClient)();
    return this.ownClient;
  }

  /**
   * The scheduling settings.
   *
   * @throws ConfigurationError naming every missing setting.
   */
  config(): SchedulerLocation {
    this.resolved ??= resolveSchedulerLocation(this.options.location);
    return this.resolved;
  }

  /** The recurring schedules' group. @throws ConfigurationError when not configured. */
  get groupName(): string {
    return this.config().groupName;
  }

  /** The delayed tasks' group. @throws ConfigurationError when not configured. */
  get delayedGroupName(): string {
    return this.config().delayedGroupName;
  }

  /**
   * `KmsKeyArn` for CreateSchedule: the executor's customer-managed key, or nothing (AWS
   * owned key). @throws ConfigurationError when not configured.
   */
  encryption(): { KmsKeyArn?: string } {
    const arn = this.config().kmsKeyArn;
    return arn === undefined ? {} : { KmsKeyArn: arn };
  }

  /**
   * A schedule target that sends `input` to the work queue of `lane` (undefined: the
   * default lane) in `messageGroupId`, with the service's longest retry policy and the
   * schedules' dead-letter queue, delivered as the role of the schedule's group (`kind`):
   * Scheduler may assume each role only for its own group (ADR 0036).
   *
   * @throws UnknownLaneError when the executor has no such lane.
   */
  async target(
    input: string,
    messageGroupId: string,
    lane: string | undefined,
    kind: 'delayed' | 'recurring',
  ): Promise<Target> {
    const config = this.config();
    return {
      Arn:
        lane === undefined || lane === DEFAULT_LANE
          ? await this.workQueueArn(config)
          : await this.laneQueueArn(lane),
      RoleArn: kind === 'delayed' ? config.delayedRoleArn : config.roleArn,
      Input: input,
      SqsParameters: { MessageGroupId: messageGroupId },
      RetryPolicy: {
        MaximumEventAgeInSeconds: Defaults.SCHEDULE_MAX_EVENT_AGE_SECONDS,
        MaximumRetryAttempts: Defaults.SCHEDULE_MAX_RETRY_ATTEMPTS,
      },
      DeadLetterConfig: { Arn: config.deadLetterArn },
    };
  }

  private laneQueueArn(lane: string): Promise<string> {
    const location = (
      this.options.lanes ?? new LaneQueues({ queueUrl: this.options.queueUrl })
    ).get(lane, 'The schedule');
    if (location.queueArn !== undefined) return Promise.resolve(location.queueArn);
    let arn = this.laneArns.get(lane);
    if (arn === undefined) {
      arn = queueArnOf(this.options.sqs, location.queueUrl);
      this.laneArns.set(lane, arn);
      arn.catch(() => this.laneArns.delete(lane));
    }
    return arn;
  }

  private workQueueArn(config: SchedulerLocation): Promise<string> {
    if (config.queueArn !== undefined) return Promise.resolve(config.queueArn);
    if (this.queueArn === undefined) {
      this.queueArn = queueArnOf(this.options.sqs, this.options.queueUrl);
      this.queueArn.catch(() => {
        this.queueArn = undefined;
      });
    }
    return this.queueArn;
  }
}

/** A queue's ARN, read from its attributes. */
async function queueArnOf(sqs: SQSClient, queueUrl: string): Promise<string> {
  const { GetQueueAttributesCommand } = await loadSqs();
  const out = await sqs.send(
    new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['QueueArn'] }),
  );
  return out.Attributes?.QueueArn ?? '';
}

/** A Scheduler client made from the environment whose package loads on its first `send`. */
function lazySchedulerClient(): SchedulerClient {
  return clientOnFirstSend(async () => {
    const { SchedulerClient } = await loadScheduler();
    return new SchedulerClient(awsClientConfig());
  });
}
