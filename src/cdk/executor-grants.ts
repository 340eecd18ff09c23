/**
 * The IAM grants a TaskExecutor hands out, one per TaskClient feature, each with exactly the
 * actions that feature calls. The TaskExecutor's grant methods delegate here and list the
 * actions in their JSDoc.
 *
 * Schedule names are made at run time, so schedule actions take an ARN pattern. What only
 * touches delayed tasks' one-time schedules (enqueue, cancel, the sweeper's repair) is
 * scoped to their names in their own group, `schedule/<group>.at/task.*` and
 * `schedule/<group>.at/task_*`; managing recurring schedules, whose names the caller
 * chooses, takes the recurring group, `schedule/<group>/*`.
 * `scheduler:ListSchedules` supports no resource type at all and needs `*`. Each wildcard
 * is acknowledged to cdk-nag on the policy that holds it.
 */
import type { Stack } from 'aws-cdk-lib';
import { Grant, type IGrantable } from 'aws-cdk-lib/aws-iam';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct, type IConstruct } from 'constructs';
import { WAKE_SCHEDULE_PREFIX } from '../core/constants.js';
import { DEBOUNCE_ID_PREFIX, DEBOUNCE_POINTER_PREFIX } from '../core/debounce.js';
import {
  DEBOUNCED_UPDATE_ATTRIBUTES,
  PRODUCER_UPDATE_ATTRIBUTES,
  SIGNAL_ITEM_PREFIX,
} from '../store/producer-writes.js';
import {
  DELAYED_SCHEDULE_PREFIXES,
  KEY_USE_ACTIONS,
  WORKER_QUEUE_ACTIONS,
  WORKER_TABLE_ACTIONS,
} from './grant-actions.js';
import { iam5Finding } from './nag-finding.js';

/** The executor's resources that grants point at. */
export interface GrantTargets {
  /** The construct that owns the grants (names the ListSchedules policy). */
  readonly owner: Construct;
  readonly tableArn: string;
  /** The table's stream (its latest), which `watch()` reads. */
  readonly tableStreamArn: string;
  /** `<table ARN>/index/<status index>`. */
  readonly statusIndexArn: string;
  readonly workQueue: IQueue;
  /** The work queue's FIFO DLQ, which redrive reads. */
  readonly deadLetterQueue: IQueue;
  /** Every lane's work queue (just {@link workQueue} without lanes): grants cover them all. */
  readonly workQueues: readonly IQueue[];
  /** Every lane's DLQ (just {@link deadLetterQueue} without lanes). */
  readonly deadLetterQueues: readonly IQueue[];
  /** The customer-managed key of the queues and the table, when there is one. */
  readonly encryptionKey?: IKey | undefined;
  /** The recurring schedules: `arn:<partition>:scheduler:<region>:<account>:schedule/<group>/*`. */
  readonly schedulesArn: string;
  /** The delayed tasks' schedules: `…:schedule/<group>.at/task.*` and `…/task_*`. */
  readonly delayedSchedulesArns: readonly string[];
  /** The recurring schedules' delivery role, passed only by `grantManageSchedules`. */
  readonly schedulerRoleArn: string;
  /** The delayed tasks' delivery role, passed by producers and the sweeper. */
  readonly delayedSchedulerRoleArn: string;
  /** Records a cdk-nag acknowledgement (see `acknowledgeFinding` in nag-acknowledgements.ts). */
  readonly acknowledge: (scope: IConstruct, id: string, reason: string, covering?: boolean) => void;
}

/** The parts of a TaskExecutor its grants point at (described here, so no import cycle). */
export interface GrantParts {
  readonly table: { readonly tableArn: string; readonly tableStreamArn?: string | undefined };
  readonly settings: { readonly table: { readonly statusIndex: { readonly name: string } } };
  readonly workQueue: IQueue;
  readonly deadLetterQueue: IQueue;
  readonly lanes: ReadonlyMap<
    string,
    { readonly workQueue: IQueue; readonly deadLetterQueue: IQueue }
  >;
  readonly encryptionKey: IKey | undefined;
  readonly schedulesArn: string;
  readonly delayedSchedulesArns: readonly string[];
  readonly scheduling: {
    readonly schedulerRole: { readonly roleArn: string };
    readonly delayedSchedulerRole: { readonly roleArn: string };
  };
}

/** The grant targets of an executor (`owner`), acknowledging findings with `acknowledge`. */
export function grantTargetsOf(
  owner: Construct & GrantParts,
  acknowledge: GrantTargets['acknowledge'],
): GrantTargets {
  const lanes = [...owner.lanes.values()];
  return {
    owner,
    tableArn: owner.table.tableArn,
    // The construct always enables the stream (createTaskTable).
    tableStreamArn: owner.table.tableStreamArn ?? '',
    statusIndexArn: `${owner.table.tableArn}/index/${owner.settings.table.statusIndex.name}`,
    workQueue: owner.workQueue,
    deadLetterQueue: owner.deadLetterQueue,
    workQueues: lanes.map((l) => l.workQueue),
    deadLetterQueues: lanes.map((l) => l.deadLetterQueue),
    encryptionKey: owner.encryptionKey,
    schedulesArn: owner.schedulesArn,
    delayedSchedulesArns: owner.delayedSchedulesArns,
    schedulerRoleArn: owner.scheduling.schedulerRole.roleArn,
    delayedSchedulerRoleArn: owner.scheduling.delayedSchedulerRole.roleArn,
    acknowledge,
  };
}

/**
 * The ARN patterns of the task schedule groups: every schedule of the recurring group, and
 * the delayed tasks' ones (`task.*`, `task_*`) in the delayed group.
 */
export function scheduleArns(
  stack: Stack,
  groupName: string,
  delayedGroupName: string,
): { schedulesArn: string; delayedSchedulesArns: string[] } {
  const arn = (name: string) =>
    stack.formatArn({ service: 'scheduler', resource: 'schedule', resourceName: name });
  return {
    schedulesArn: arn(`${groupName}/*`),
    delayedSchedulesArns: DELAYED_SCHEDULE_PREFIXES.map((prefix) =>
      arn(`${delayedGroupName}/${prefix}*`),
    ),
  };
}

/**
 * The ARN pattern of suspended tasks' wake schedules, `schedule/<group>.at/task_w*`: the one
 * kind of schedule the worker may create (docs/adr/0048-durable-sleep-signals-pause.md).
 */
export function wakeSchedulesArn(stack: Stack, delayedGroupName: string): string {
  return stack.formatArn({
    service: 'scheduler',
    resource: 'schedule',
    resourceName: `${delayedGroupName}/${WAKE_SCHEDULE_PREFIX}*`,
  });
}

/** Why `schedule/<group>.at/task_w*` is as narrow as the worker's statement gets. */
export const WAKE_WILDCARD_REASON =
  'A sleeping task’s wake schedule is named after a hash of its task and generation, known only at run time; the statement is scoped to the wake prefix (task_w) in the executor’s delayed-task schedule group (<group>.at), which no delayed task’s schedule (task.<id>, task_<hex>) and no recurring schedule can match.';

/** Why `schedule/<group>/*` is as narrow as a statement on recurring schedules gets. */
export const GROUP_WILDCARD_REASON =
  'Recurring schedules are named by the caller at run time, and IAM cannot exclude names from a pattern; the statement is scoped to the executor’s recurring schedule group, schedule/<group>/*. Delayed tasks’ schedules (<group>.at) and the sweeper’s own schedule (<group>.sys) live in groups of their own, outside this pattern.';

/** Why `schedule/<group>.at/task.*` and `…/task_*` are as narrow as delayed-task statements get. */
export const DELAYED_WILDCARD_REASON =
  'A delayed task’s one-time schedule is named after its task id (task.<id>, or task_<hash> for an id Scheduler refuses), which is known only at run time; the statement is scoped to those two name prefixes in the executor’s delayed-task schedule group (<group>.at), so it reaches neither recurring schedules (in the main group, and barred from the prefixes) nor the sweeper’s schedule (<group>.sys).';
/**
 * Statements on the executor's schedules: on the delayed tasks' ones (`delayed`), or on the
 * whole task group. Each wildcard is acknowledged on the principal (a role), covering
 * whichever of its policies the statement lands in; the finding names the exact ARN pattern,
 * so it covers no other wildcard.
 */
export function scheduleGrant(
  targets: GrantTargets,
  grantee: IGrantable,
  actions: string[],
  scope: 'delayed' | 'group',
): Grant {
  const resourceArns =
    scope === 'delayed' ? [...targets.delayedSchedulesArns] : [targets.schedulesArn];
  const reason = scope === 'delayed' ? DELAYED_WILDCARD_REASON : GROUP_WILDCARD_REASON;
  const grant = Grant.addToPrincipal({ grantee, actions, resourceArns });
  const principal = grantee.grantPrincipal;
  if (grant.principalStatement !== undefined && Construct.isConstruct(principal)) {
    for (const arn of resourceArns) {
      targets.acknowledge(principal, iam5Finding(principal, arn), reason, true);
    }
  }
  return grant;
}

/**
 * `iam:PassRole` of one schedule group's delivery role, to EventBridge Scheduler only: the
 * delayed tasks' role (`delayed`) or the recurring schedules' (`recurring`). Whoever can pass
 * the recurring role can make firings the worker believes, so only schedule managers get it.
 */
export function passSchedulerRoleGrant(
  targets: GrantTargets,
  grantee: IGrantable,
  role: 'delayed' | 'recurring',
): Grant {
  return Grant.addToPrincipal({
    grantee,
    actions: ['iam:PassRole'],
    resourceArns: [role === 'delayed' ? targets.delayedSchedulerRoleArn : targets.schedulerRoleArn],
    conditions: { StringEquals: { 'iam:PassedToService': 'scheduler.amazonaws.com' } },
  });
}

/**
 * `actions` on the executor's customer-managed key, or an empty grant without one. The
 * statement names the key's ARN, never `*`.
 */
export function keyGrant(targets: GrantTargets, grantee: IGrantable, actions: string[]): Grant {
  if (targets.encryptionKey === undefined) return Grant.drop(grantee, 'no encryption key');
  return Grant.addToPrincipal({
    grantee,
    actions,
    resourceArns: [targets.encryptionKey.keyArn],
  });
}

/**
 * What a principal that writes or reads schedules encrypted with the executor's key
 * (Scheduler's `KmsKeyArn`) needs on it: Scheduler encrypts a schedule's target input with
 * the caller's `kms:Encrypt` on CreateSchedule and UpdateSchedule, and decrypts it with the
 * caller's `kms:Decrypt` on GetSchedule.
 */
export const SCHEDULE_KEY_ACTIONS = ['kms:Decrypt', 'kms:Encrypt'];

/** TaskClient.enqueue and enqueueBatch, immediate and delayed. */
export function enqueueGrant(targets: GrantTargets, grantee: IGrantable): Grant {
  return Grant.addToPrincipal({
    grantee,
    // Creates a record; whether it runs is decided by its one conditional write, which IAM
    // cannot require (docs/security.md).
    actions: ['dynamodb:PutItem'],
    resourceArns: [targets.tableArn],
  })
    .combine(producerUpdateGrant(targets, grantee))
    .combine(
      // The queue's own grantSendMessages would add `kms:GenerateDataKey*` and
      // `kms:ReEncrypt*` for an encrypted queue; keyGrant lists the key's actions instead.
      Grant.addToPrincipal({
        grantee,
        actions: ['sqs:SendMessage', 'sqs:GetQueueAttributes', 'sqs:GetQueueUrl'],
        resourceArns: targets.workQueues.map((q) => q.queueArn),
      }),
    )
    .combine(
      scheduleGrant(
        targets,
        grantee,
        ['scheduler:CreateSchedule', 'scheduler:DeleteSchedule'],
        'delayed',
      ),
    )
    .combine(passSchedulerRoleGrant(targets, grantee, 'delayed'))
    .combine(keyGrant(targets, grantee, KEY_USE_ACTIONS));
}

/**
 * A producer's UpdateItem (mark sent, confirm a delayed task's schedule, roll it back,
 * cancel), limited to the attributes those writes name, so it cannot touch a task's type, payload,
 * attempt budget, lease or result. No DeleteItem: a rollback is a move to ROLLED_BACK.
 */
function producerUpdateGrant(targets: GrantTargets, grantee: IGrantable): Grant {
  return Grant.addToPrincipal({
    grantee,
    actions: ['dynamodb:UpdateItem'],
    resourceArns: [targets.tableArn],
    conditions: {
      'ForAllValues:StringEquals': { 'dynamodb:Attributes': [...PRODUCER_UPDATE_ATTRIBUTES] },
    },
  }).combine(debounceGrant(targets, grantee));
}

/**
 * A debounced enqueue (docs/adr/0029-debounce.md): reading a key's pointer, and folding an
 * enqueue into a waiting debounced task, which in mode 'last' replaces its payload and
 * `runAt`. Both only on their own keys (`debounce …` pointers, `debounce-…` tasks, a prefix
 * explicit ids may not take), so no other task's payload can be changed in place.
 */
function debounceGrant(targets: GrantTargets, grantee: IGrantable): Grant {
  return Grant.addToPrincipal({
    grantee,
    actions: ['dynamodb:GetItem'],
    resourceArns: [targets.tableArn],
    conditions: {
      'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [`${DEBOUNCE_POINTER_PREFIX}*`] },
    },
  }).combine(
    Grant.addToPrincipal({
      grantee,
      actions: ['dynamodb:UpdateItem'],
      resourceArns: [targets.tableArn],
      conditions: {
        'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [`${DEBOUNCE_ID_PREFIX}*`] },
        'ForAllValues:StringEquals': { 'dynamodb:Attributes': [...DEBOUNCED_UPDATE_ATTRIBUTES] },
      },
    }),
  );
}

/** A worker outside Lambda: `createWorker(tasks).poll()` on ECS, EC2 or a laptop. */
export function consumeGrant(targets: GrantTargets, grantee: IGrantable): Grant {
  return Grant.addToPrincipal({
    grantee,
    actions: WORKER_TABLE_ACTIONS,
    resourceArns: [targets.tableArn],
  })
    .combine(
      Grant.addToPrincipal({
        grantee,
        actions: WORKER_QUEUE_ACTIONS,
        resourceArns: targets.workQueues.map((q) => q.queueArn),
      }),
    )
    .combine(keyGrant(targets, grantee, KEY_USE_ACTIONS));
}

/**
 * TaskClient.signal (docs/adr/0048-durable-sleep-signals-pause.md): read the task; count the
 * signal on it (UpdateItem naming only the signal attributes) and put the signal's item (only
 * `signal …` keys), in one transaction, deleting a purged task's leftover item of the same
 * key; then wake a waiting task: show its held message or send it a new one.
 */
export function signalGrant(targets: GrantTargets, grantee: IGrantable): Grant {
  const signalItems = {
    'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [`${SIGNAL_ITEM_PREFIX}*`] },
  };
  return Grant.addToPrincipal({
    grantee,
    // GetItem: the task and its signal head; ConditionCheckItem: the task's state, checked in
    // the signal's transaction, which writes nothing to it (ADR 0066).
    actions: ['dynamodb:GetItem', 'dynamodb:ConditionCheckItem'],
    resourceArns: [targets.tableArn],
  })
    .combine(
      Grant.addToPrincipal({
        grantee,
        // The head (which counts the signals), the signals, their ids' reservations: never a
        // task's item.
        actions: ['dynamodb:UpdateItem', 'dynamodb:PutItem', 'dynamodb:DeleteItem'],
        resourceArns: [targets.tableArn],
        conditions: signalItems,
      }),
    )
    .combine(
      Grant.addToPrincipal({
        grantee,
        // The wake: a held message shown, or a new one sent.
        actions: ['sqs:SendMessage', 'sqs:ChangeMessageVisibility'],
        resourceArns: targets.workQueues.map((q) => q.queueArn),
      }),
    );
}

/** TaskClient.redrive, cancel and purge, with the reads they start from. */
export function operateGrant(targets: GrantTargets, grantee: IGrantable): Grant {
  return (
    Grant.addToPrincipal({
      grantee,
      // GetItem and UpdateItem: the transitions; DeleteItem: purge; BatchGetItem: the
      // DEAD tasks listed by the status index, which projects only a few attributes.
      actions: [
        'dynamodb:GetItem',
        'dynamodb:UpdateItem',
        'dynamodb:DeleteItem',
        'dynamodb:BatchGetItem',
      ],
      resourceArns: [targets.tableArn],
    })
      .combine(
        Grant.addToPrincipal({
          grantee,
          // Selecting DEAD tasks (redrive all, purge) pages the status index.
          actions: ['dynamodb:Query'],
          resourceArns: [targets.statusIndexArn],
        }),
      )
      .combine(
        Grant.addToPrincipal({
          grantee,
          // A redriven task's message, and a dead letter moved back; a parked key's held
          // message, let go by a redrive or releaseKey, or deleted with its purged task.
          actions: ['sqs:SendMessage', 'sqs:ChangeMessageVisibility', 'sqs:DeleteMessage'],
          resourceArns: targets.workQueues.map((q) => q.queueArn),
        }),
      )
      .combine(
        Grant.addToPrincipal({
          grantee,
          // Redrive clears the DLQ of the messages of the tasks it brought back.
          actions: ['sqs:ReceiveMessage', 'sqs:DeleteMessage', 'sqs:ChangeMessageVisibility'],
          resourceArns: targets.deadLetterQueues.map((q) => q.queueArn),
        }),
      )
      // Cancelling a delayed task deletes its one-time schedule.
      .combine(scheduleGrant(targets, grantee, ['scheduler:DeleteSchedule'], 'delayed'))
      .combine(keyGrant(targets, grantee, KEY_USE_ACTIONS))
  );
}

/**
 * The actions of a reader of the table's stream (`watch()`, `tasklane tail`): the shards,
 * an iterator into each, and their records. ListStreams is not among them: the reader finds
 * the stream's ARN with DescribeTable, so no statement needs `*`.
 */
export const STREAM_READ_ACTIONS = [
  'dynamodb:DescribeStream',
  'dynamodb:GetShardIterator',
  'dynamodb:GetRecords',
];

/**
 * TaskClient.get, list, counts, watch and wait. BatchGetItem reads the items the status
 * index lists (it projects a few attributes); Scan counts and lists the statuses the index
 * does not key (docs/status-index.md); DescribeTable finds the table's stream, whose
 * records `watch()` reads (docs/adr/0049-watch-reads-the-table-stream.md).
 */
export function readGrant(targets: GrantTargets, grantee: IGrantable): Grant {
  return Grant.addToPrincipal({
    grantee,
    actions: [
      'dynamodb:GetItem',
      'dynamodb:BatchGetItem',
      'dynamodb:Scan',
      'dynamodb:DescribeTable',
    ],
    resourceArns: [targets.tableArn],
  })
    .combine(
      Grant.addToPrincipal({
        grantee,
        actions: STREAM_READ_ACTIONS,
        resourceArns: [targets.tableStreamArn],
      }),
    )
    .combine(
      Grant.addToPrincipal({
        grantee,
        actions: ['dynamodb:Query'],
        resourceArns: [targets.statusIndexArn],
      }),
    )
    .combine(keyGrant(targets, grantee, ['kms:Decrypt']));
}
