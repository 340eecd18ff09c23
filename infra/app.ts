/**
 * The CDK app. For now it declares the executor's queues and table from the same settings
 * object the emulator provisioning uses; the full TaskExecutor construct (worker function,
 * event source mapping, scheduler, alarms) builds on this.
 */
import { App, Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import { AttributeType, Billing, TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import {
  DeduplicationScope,
  FifoThroughputLimit,
  Queue,
  QueueEncryption,
} from 'aws-cdk-lib/aws-sqs';
import { executorSettings } from '../src/resources.js';

const app = new App();
const stack = new Stack(app, 'TasklaneExample');
const settings = executorSettings({ name: 'tasklane-example' });

const deadLetterQueue = new Queue(stack, 'DeadLetterQueue', {
  queueName: settings.deadLetterQueue.name,
  fifo: true,
  retentionPeriod: Duration.days(14),
  encryption: QueueEncryption.SQS_MANAGED,
  enforceSSL: true,
});
new Queue(stack, 'WorkQueue', {
  queueName: settings.workQueue.name,
  fifo: true,
  contentBasedDeduplication: true,
  deduplicationScope: DeduplicationScope.MESSAGE_GROUP,
  fifoThroughputLimit: FifoThroughputLimit.PER_MESSAGE_GROUP_ID,
  visibilityTimeout: Duration.seconds(settings.visibilityTimeoutSeconds),
  retentionPeriod: Duration.days(14),
  encryption: QueueEncryption.SQS_MANAGED,
  enforceSSL: true,
  deadLetterQueue: { queue: deadLetterQueue, maxReceiveCount: settings.maxReceiveCount },
});
new TableV2(stack, 'TaskTable', {
  tableName: settings.table.name,
  partitionKey: { name: settings.table.partitionKey, type: AttributeType.STRING },
  billing: Billing.onDemand(),
  pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
  timeToLiveAttribute: settings.table.ttlAttribute,
  deletionProtection: true,
  removalPolicy: RemovalPolicy.RETAIN,
  globalSecondaryIndexes: [
    {
      indexName: settings.table.statusIndex.name,
      partitionKey: { name: settings.table.statusIndex.partitionKey, type: AttributeType.STRING },
      sortKey: { name: settings.table.statusIndex.sortKey, type: AttributeType.NUMBER },
    },
  ],
});

app.synth();
