import { SchedulerClient, type Target } from '@aws-sdk/client-scheduler';
import { GetQueueAttributesCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { awsClientConfig } from '../aws-clients.js';
import {
  type ExecutorLocation,
  resolveSchedulerLocation,
  type SchedulerLocation,
} from '../config.js';
import { Defaults } from '../constants.js';

/**
 * What delayed tasks and recurring schedules share: the Scheduler client, the executor's
 * scheduling settings (resolved on first use, so clients that never schedule need none),
 * and the target every schedule points at, the FIFO work queue.
 */
export class SchedulerTarget {
  private resolved: SchedulerLocation | undefined;
  private queueArn: Promise<string> | undefined;
  private ownClient: SchedulerClient | undefined;

  constructor(
    private readonly options: {
      readonly location: ExecutorLocation;
      readonly sqs: SQSClient;
      readonly queueUrl: string;
      readonly scheduler?: SchedulerClient | undefined;
    },
  ) {}

  /** The Scheduler client: the injected one, or one made from the environment. */
  get client(): SchedulerClient {
    if (this.options.scheduler !== undefined) return this.options.scheduler;
    this.ownClient ??= new SchedulerClient(awsClientConfig());
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
   * A schedule target that sends `input` to the work queue in `messageGroupId`, with the
   * service's longest retry policy and the schedules' dead-letter queue.
   */
  async target(input: string, messageGroupId: string): Promise<Target> {
    const config = this.config();
    return {
      Arn: await this.workQueueArn(config),
      RoleArn: config.roleArn,
      Input: input,
      SqsParameters: { MessageGroupId: messageGroupId },
      RetryPolicy: {
        MaximumEventAgeInSeconds: Defaults.SCHEDULE_MAX_EVENT_AGE_SECONDS,
        MaximumRetryAttempts: Defaults.SCHEDULE_MAX_RETRY_ATTEMPTS,
      },
      DeadLetterConfig: { Arn: config.deadLetterArn },
    };
  }

  private workQueueArn(config: SchedulerLocation): Promise<string> {
    if (config.queueArn !== undefined) return Promise.resolve(config.queueArn);
    if (this.queueArn === undefined) {
      this.queueArn = this.options.sqs
        .send(
          new GetQueueAttributesCommand({
            QueueUrl: this.options.queueUrl,
            AttributeNames: ['QueueArn'],
          }),
        )
        .then((out) => out.Attributes?.QueueArn ?? '');
      this.queueArn.catch(() => {
        this.queueArn = undefined;
      });
    }
    return this.queueArn;
  }
}
