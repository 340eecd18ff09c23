/**
 * The IAM action lists the executor's roles and grants share (see executor-grants.ts and
 * executor-setup.ts), and the name prefixes its delayed-schedule grants are scoped to.
 */

/**
 * What a worker calls on the table: the store's reads and conditional updates, the record a
 * recurring schedule's firing creates (PutItem), and a parked key's item, written in a
 * transaction that checks its dead task (PutItem, ConditionCheckItem; docs/adr/0024-parked-keys.md).
 */
export const WORKER_TABLE_ACTIONS = [
  'dynamodb:GetItem',
  'dynamodb:PutItem',
  'dynamodb:UpdateItem',
  'dynamodb:ConditionCheckItem',
];

/**
 * What a worker calls on the work queue: the event source mapping's (or the poll loop's)
 * receive and delete, the visibility controller's heartbeats, GetQueueAttributes or
 * GetQueueUrl when the queue ARN is not configured, and SendMessage for the dependents a
 * finished task releases (docs/adr/0030-dependencies.md).
 */
export const WORKER_QUEUE_ACTIONS = [
  'sqs:SendMessage',
  'sqs:ReceiveMessage',
  'sqs:DeleteMessage',
  'sqs:ChangeMessageVisibility',
  'sqs:GetQueueAttributes',
  'sqs:GetQueueUrl',
];

/**
 * KMS actions of a principal that writes to, and reads from, the encrypted queues and table:
 * SQS sends need GenerateDataKey and receives Decrypt; DynamoDB calls the key on the caller's
 * behalf for its writes and reads. Listed one by one (no `GenerateDataKey*`).
 */
export const KEY_USE_ACTIONS = ['kms:Decrypt', 'kms:Encrypt', 'kms:GenerateDataKey'];

/**
 * The name prefixes of delayed tasks' one-time schedules, `task.` (the task id) and `task_`
 * (its hash): see `delayedScheduleName` in src/scheduler/names.ts, which a recurring
 * schedule's name may not start with.
 */
export const DELAYED_SCHEDULE_PREFIXES = ['task.', 'task_'] as const;
