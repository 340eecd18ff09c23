/**
 * The attributes a producer's UpdateItem may name, for the `dynamodb:Attributes` condition
 * of `grantEnqueue` (docs/security.md, docs/adr/0015-rollback-moves-instead-of-deleting.md).
 *
 * A producer updates a record in four ways, each one conditional UpdateItem (it no longer
 * marks sends: docs/adr/0020-claim-without-pre-read.md):
 * - `RecordWrites.confirmSchedule`: a retried delayed enqueue marks `scheduleConfirmed`;
 * - `RepairWrites.discard`: the delayed enqueue's rollback, SCHEDULED → ROLLED_BACK;
 * - `RepairWrites.cancel`: SCHEDULED, PENDING or QUEUED → CANCELLED;
 * - `RecordWrites.requestCancel`: marks a RUNNING task `cancelRequestedAt`, which its worker
 *   ends (docs/adr/0022-progress-and-running-cancel.md);
 * - `DependencyStore.create`: adds a new task to its parents' `dependents`.
 *
 * None of them names `history`: their entries go to `producerHistory`, so a producer cannot
 * rewrite what workers, the sweeper and operators recorded (store/history.ts).
 *
 * IAM counts every top-level attribute a request names, whether it sets it or only tests it
 * in the condition, and requires the table's and the status index's key attributes. The
 * list leaves out everything that decides what a task does: its type, payload and hash,
 * `maxAttempts`, the lease, the result and the error. A unit test builds the four updates
 * and checks they stay within this list.
 */
import { TableSchema } from '../core/constants.js';
import { PRODUCER_HISTORY } from './history.js';

/** Every attribute a producer's UpdateItem names (sets, removes or tests). */
export const PRODUCER_UPDATE_ATTRIBUTES: readonly string[] = [
  TableSchema.PARTITION_KEY,
  TableSchema.STATUS_INDEX_PARTITION_KEY,
  TableSchema.STATUS_INDEX_SORT_KEY,
  'status',
  'updatedAt',
  // Not `history` (nor its fold count): a producer's entries go to a list of their own,
  // which workers, the sweeper and operators never write (docs/adr/0039-operator-audit.md).
  PRODUCER_HISTORY,
  'attempt',
  'generation',
  'createdAt',
  'scheduleConfirmed',
  'cancelRequestedAt',
  'finishedAt',
  TableSchema.TTL_ATTRIBUTE,
  // An enqueue with dependsOn adds the task to each unfinished parent's dependents, in one
  // transaction with its own Put (docs/adr/0030-dependencies.md).
  'dependents',
  'releaseShard',
];

/**
 * What a producer's UpdateItem may also name on a debounced task (ids starting
 * `debounce-`, which explicit ids may not): folding an enqueue into the key's waiting task
 * counts it in `absorbed` and, in mode 'last', replaces the payload, moves `runAt` and writes
 * the fields the producer's definition decides (docs/adr/0029-debounce.md,
 * docs/adr/0035-integrity-tag-v2.md). The pointer's update names only attributes of the list above.
 */
export const DEBOUNCED_UPDATE_ATTRIBUTES: readonly string[] = [
  ...PRODUCER_UPDATE_ATTRIBUTES,
  'debounceKey',
  'absorbed',
  'payload',
  'payloadRef',
  'payloadHash',
  'integrityTag',
  'runAt',
  // The rest of what the integrity tag covers, as the folding producer's definition says
  // (docs/adr/0035-integrity-tag-v2.md); the ordering key is only tested.
  'maxAttempts',
  'timeoutMs',
  'lane',
  'onDead',
  'orderingKey',
  // Only tested: a claim given back ends the window (docs/adr/0064-a-given-back-claim-ends-the-debounce-window.md).
  'unclaimed',
  'continuations',
];

/**
 * Every signal item's key starts so: `signal <task id> …` (a task id holds no space, so no
 * task's key does). `grantSignal` may put and delete only these items
 * (docs/adr/0048-durable-sleep-signals-pause.md). Defined beside the signals' reads, which a
 * worker loads without this module.
 */
export { SIGNAL_ITEM_PREFIX } from './signals.js';
