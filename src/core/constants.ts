/**
 * Task statuses.
 *
 * Lifecycle (docs/design.md §2):
 * - `SCHEDULED` → due → claimable (delayed tasks, delivered by EventBridge Scheduler).
 * - `WAITING` → enqueued with `dependsOn`: held until every parent has finished, then moved
 *   to `PENDING` (and sent) by the last parent's release, or `CANCELLED` by a parent that
 *   did not succeed (docs/adr/0030-dependencies.md).
 * - `PENDING` → written, waiting for a worker: its message sent, or about to be (the outbox;
 *   no write records the send, docs/adr/0020-claim-without-pre-read.md). Also the state a
 *   requeue, an overdue re-send and a redrive return to.
 * - `QUEUED` → waiting for a retry after a failed attempt; its message is in the queue.
 * - `RUNNING` → claimed by a worker under a lease.
 * - `SUSPENDED` → a durable task's run ended in `ctx.sleep` or `ctx.waitForSignal`: it holds no
 *   worker and waits for its timer or its signal, which wake it by a message; a claim then
 *   starts its next slice (docs/adr/0048-durable-sleep-signals-pause.md).
 * - `PAUSED` → stopped by `client.pause` (from SCHEDULED, PENDING, QUEUED or SUSPENDED, or
 *   at the next step, checkpoint or heartbeat of a RUNNING task); `client.resume` puts it
 *   back where it was.
 * - `SUCCEEDED` | `DEAD` | `CANCELLED` → terminal; written exactly once.
 * - `ROLLED_BACK` → a delayed task whose schedule could not be created, taken back by the
 *   enqueue that wrote it (which threw `ScheduleFailedError`). Terminal: it never runs, and
 *   `wait()` returns it. A later enqueue of the same id replaces it with a new record
 *   (docs/adr/0015-rollback-moves-instead-of-deleting.md).
 *
 * `DEAD` is reached on the last failed attempt, a `PermanentError`, an unknown task type
 * or an invalid payload. A DEAD task keeps its history and can be redriven.
 */
export const TaskStatus = {
  WAITING: 'WAITING',
  SCHEDULED: 'SCHEDULED',
  PENDING: 'PENDING',
  QUEUED: 'QUEUED',
  RUNNING: 'RUNNING',
  SUSPENDED: 'SUSPENDED',
  PAUSED: 'PAUSED',
  SUCCEEDED: 'SUCCEEDED',
  DEAD: 'DEAD',
  CANCELLED: 'CANCELLED',
  ROLLED_BACK: 'ROLLED_BACK',
} as const;

/** One of the {@link TaskStatus} values. */
export type TaskStatus = (typeof TaskStatus)[keyof typeof TaskStatus];

/** Statuses from which a task never moves again (except DEAD, by an explicit redrive). */
export const TERMINAL_STATUSES: readonly TaskStatus[] = [
  TaskStatus.SUCCEEDED,
  TaskStatus.DEAD,
  TaskStatus.CANCELLED,
  TaskStatus.ROLLED_BACK,
];

/** True when `status` is terminal. */
export function isTerminal(status: TaskStatus): boolean {
  return TERMINAL_STATUSES.includes(status);
}

/**
 * Audit events, one per state transition (docs/design.md §1.7). Each is logged, and written to the task's history
 * in the same conditional write as the transition, except `heartbeat-extended`: a heartbeat
 * only counts itself on the record (`heartbeats`, `lastHeartbeatAt`), so that a long task's
 * history does not grow with its run time.
 */
export const AuditEvent = {
  SUBMITTED: 'submitted',
  SENT: 'sent',
  SCHEDULED: 'scheduled',
  CLAIMED: 'claimed',
  HEARTBEAT_EXTENDED: 'heartbeat-extended',
  RETRY_SCHEDULED: 'retry-scheduled',
  SUCCEEDED: 'succeeded',
  FAILED: 'failed',
  DEAD: 'dead',
  CANCELLED: 'cancelled',
  REDRIVEN: 'redriven',
  STALE_DROPPED: 'stale-dropped',
  REQUEUED: 'requeued',
  /** Logged before a DEAD task's delete, which leaves no record (docs/adr/0039-operator-audit.md). */
  PURGED: 'purged',
  /** A purge's delete was refused (the task changed since it was read) or failed: logged only. */
  PURGE_REFUSED: 'purge-refused',
  DUPLICATE_DROPPED: 'duplicate-dropped',
  MESSAGE_REJECTED: 'message-rejected',
  /** A delayed task whose schedule could not be created was rolled back (enqueue threw). */
  ROLLED_BACK: 'rolled-back',
  /**
   * The sweeper gave a QUEUED task whose turn was long overdue a new generation, to send it
   * again: its message may have outlived the queue's retention (docs/adr/0010-retention-and-overdue-resend.md).
   */
  RESENT: 'resent',
  /**
   * The record's integrity tag is missing or does not match its id, type, payload and
   * maxAttempts: the worker declares it DEAD unrun, the sweeper does not send it (docs/security.md).
   */
  INTEGRITY_FAILED: 'integrity-failed',
  /** `client.cancel` asked a RUNNING task to stop; its worker ends it CANCELLED. */
  CANCEL_REQUESTED: 'cancel-requested',
  /**
   * An enqueue with `debounce` was folded into the key's waiting task (logged only: the task
   * counts them in `absorbed` instead of growing its history; docs/debounce.md).
   */
  DEBOUNCED: 'debounced',
  /**
   * An operator gave up on a DEAD task that parked its ordering key: the task stays DEAD and
   * the key's later tasks proceed (docs/adr/0024-parked-keys.md).
   */
  KEY_RELEASED: 'key-released',
  /**
   * The last of a WAITING task's parents finished: the task moved to PENDING and its message
   * was sent (docs/adr/0030-dependencies.md).
   */
  RELEASED: 'released',
  /**
   * A worker gave back a claim it could not start because a dependency (S3, KMS) failed: the
   * task is QUEUED again at the attempt it had, and its message comes back later
   * (docs/adr/0034-dependency-outages.md).
   */
  UNCLAIMED: 'unclaimed',
  /**
   * An operator paused, resumed or deleted a recurring schedule: logged only, with the
   * operator's principal (docs/adr/0039-operator-audit.md).
   */
  SCHEDULE_PAUSED: 'schedule-paused',
  SCHEDULE_RESUMED: 'schedule-resumed',
  SCHEDULE_DELETED: 'schedule-deleted',
  /**
   * An operator paused or resumed a whole lane: logged only, with the operator's principal
   * (docs/adr/0048-durable-sleep-signals-pause.md, "Pausing a lane").
   */
  LANE_PAUSED: 'lane-paused',
  LANE_RESUMED: 'lane-resumed',
  /**
   * A durable task's handler saved a checkpoint: one fenced write of the record, which also
   * extends the lease and carries pending progress (docs/adr/0047-durable-tasks.md).
   */
  CHECKPOINTED: 'checkpointed',
  /**
   * A durable task's step stored its result in an item of its own; the entry lives in that
   * item, not in the task's history (docs/adr/0047-durable-tasks.md).
   */
  STEP_STORED: 'step-stored',
  /**
   * A durable task ended its slice with `ctx.continue()`: QUEUED again without spending an
   * attempt, its message kept at the head of its group (docs/adr/0047-durable-tasks.md).
   */
  CONTINUED: 'continued',
  /**
   * A durable task's run ended in `ctx.sleep` or `ctx.waitForSignal`: SUSPENDED, no attempt
   * spent, until its timer or its signal wakes it (docs/adr/0048-durable-sleep-signals-pause.md).
   */
  SUSPENDED: 'suspended',
  /**
   * A signal was stored for the task (`client.signal`): logged only, by the sender; its entry
   * is the signal's own item, and the wait that consumes it stores it in its memo.
   */
  SIGNALLED: 'signalled',
  /** An operator paused the task (`client.pause`), or its run ended at a pause request. */
  PAUSED: 'paused',
  /** `client.pause` asked a RUNNING task to pause; its run ends at its next step, checkpoint or heartbeat. */
  PAUSE_REQUESTED: 'pause-requested',
  /** An operator resumed a PAUSED task (`client.resume`): it is back where it was. */
  RESUMED: 'resumed',
} as const;

/** One of the {@link AuditEvent} values. */
export type AuditEvent = (typeof AuditEvent)[keyof typeof AuditEvent];

/**
 * What a task type's DEAD task does to its ordering key (docs/adr/0024-parked-keys.md).
 * - `release`: the key's later tasks proceed at once (the default).
 * - `park`: the key is held by the dead task's own message until the task is redriven (it
 *   runs first, then the rest in order) or the key is released.
 */
export const OnDead = {
  RELEASE: 'release',
  PARK: 'park',
} as const;

/** One of the {@link OnDead} values. */
export type OnDead = (typeof OnDead)[keyof typeof OnDead];

/**
 * What a WAITING task makes of a parent that ended DEAD or CANCELLED (docs/dependencies.md).
 * - `cancel`: the task is cancelled too, and so, in turn, are its own dependents that cancel.
 * - `run`: the parent counts as finished, as if it had succeeded.
 */
export const OnParentDead = {
  CANCEL: 'cancel',
  RUN: 'run',
} as const;

/** One of the {@link OnParentDead} values. */
export type OnParentDead = (typeof OnParentDead)[keyof typeof OnParentDead];

/** Defaults shared by the SDK, the worker and the infrastructure. */
export const Defaults = {
  /** Largest accepted payload, as UTF-8 JSON (docs/design.md §7: keep well under SQS's 1 MiB). */
  MAX_PAYLOAD_BYTES: 256 * 1024,
  /** Largest handler result stored on the record without a payload bucket; larger ones fail. */
  MAX_RESULT_BYTES: 32 * 1024,
  /** Largest `ctx.progress()` details, as UTF-8 JSON; larger details are refused. */
  MAX_PROGRESS_BYTES: 4 * 1024,
  /**
   * With a payload bucket: payloads and results larger than this, as UTF-8 JSON, go to S3
   * and the record holds a reference (docs/large-payloads.md).
   */
  PAYLOAD_THRESHOLD_BYTES: 64 * 1024,
  /** Highest accepted threshold: two inline values plus the history stay far under 400 KB. */
  MAX_PAYLOAD_THRESHOLD_BYTES: 128 * 1024,
  /** With a payload bucket: the default largest payload and result, 100 MiB. */
  MAX_CLAIM_CHECK_BYTES: 100 * 1024 * 1024,
  /** Ceiling of `retry.maxAttempts`. */
  MAX_ATTEMPTS_LIMIT: 100,
  /** Attempts per task, the first run included. */
  MAX_ATTEMPTS: 3,
  /** Backoff base: the cap of the first retry's jittered delay. */
  RETRY_BASE_DELAY_MS: 1_000,
  /** Backoff cap for any single retry delay. */
  RETRY_MAX_DELAY_MS: 5 * 60_000,
  /** Handler timeout when a task definition gives none. */
  TASK_TIMEOUT_MS: 30_000,
  /**
   * Added to the handler timeout to form the lease. Another worker judges expiry by its own
   * clock, so the grace must exceed the worst clock skew between any two workers (±30 s
   * around true time is 60 s between two workers) plus write latency.
   */
  LEASE_GRACE_MS: 75_000,
  /** Longest lease a claim takes; longer runs heartbeat automatically. */
  LEASE_DURATION_MS: 120_000,
  /**
   * After a run's first `ctx.progress()` report, which is written at once, later reports are
   * written at most once per this interval, whatever the lease (docs/progress-and-cancel.md).
   */
  PROGRESS_INTERVAL_MS: 5_000,
  /** The shortest progress interval a worker accepts: a write per report is what it avoids. */
  MIN_PROGRESS_INTERVAL_MS: 500,
  /** Shards of the status index partition key (`status#shard`). */
  STATUS_SHARDS: 8,
  /** SQS's ceiling for a visibility timeout (12 hours), in seconds. */
  MAX_VISIBILITY_TIMEOUT_SECONDS: 43_200,
  /** SendMessageBatch / DeleteMessageBatch entry limit. */
  SQS_BATCH_SIZE: 10,
  /**
   * A runAt further out than this goes through an EventBridge Scheduler one-time schedule;
   * a nearer one is sent at once and held back by the worker until due.
   */
  SCHEDULE_THRESHOLD_MS: 60_000,
  /** Largest payload of a recurring schedule: it travels inside the schedule's target input. */
  MAX_SCHEDULE_PAYLOAD_BYTES: 8 * 1024,
  /** Scheduler's retry policy for delivering to the queue: the service's maximums. */
  SCHEDULE_MAX_EVENT_AGE_SECONDS: 86_400,
  SCHEDULE_MAX_RETRY_ATTEMPTS: 185,
  /** Duplicate firings noted in one task's history at most; later ones are only logged. */
  MAX_DUPLICATE_NOTES: 20,
  /** The work queue's message retention: SQS's maximum, 14 days, in seconds. */
  QUEUE_RETENTION_SECONDS: 1_209_600,
  /**
   * A task type's retry horizon may use at most this share of the queue's retention: retries
   * reuse the first message, whose retention runs from its first send.
   */
  RETRY_HORIZON_SHARE: 0.5,
  /** How long a finished task's id stays reserved: 30 days, then DynamoDB's TTL removes it. */
  RETENTION_MS: 30 * 24 * 60 * 60 * 1000,
  /** Shortest and longest finite retention accepted; beyond the longest, use `'forever'`. */
  MIN_RETENTION_MS: 60_000,
  MAX_RETENTION_MS: 3650 * 24 * 60 * 60 * 1000,
  /** Longest wait between two sweeper re-sends of one PENDING task (the backoff's cap). */
  PENDING_RESEND_MAX_BACKOFF_MS: 60 * 60 * 1000,
  /** A QUEUED task due this long ago and never claimed is sent again by the sweeper. */
  QUEUED_OVERDUE_MS: 6 * 60 * 60 * 1000,
  /**
   * Byte budget of a task's history (estimated as JSON). Past it, a transition folds the
   * older entries into the record's `historyTruncated` count, keeping the first and the
   * newest ones, so the item stays far under DynamoDB's 400 KB: payload (256 KB) + result
   * (32 KB) + history (16 KB) + a few KB of other attributes.
   */
  HISTORY_BUDGET_BYTES: 16 * 1024,
  /** A fold shrinks the history to this fraction of its budget, so folds stay rare. */
  HISTORY_FOLD_TARGET: 0.75,
  /**
   * DynamoDB's item size limit, as bytes of the item's JSON (an upper estimate). A write the
   * service refused for size is retried without the result when the estimate exceeds this.
   */
  MAX_ITEM_BYTES: 400 * 1024,
  /**
   * Most parents one task may depend on: its enqueue is one TransactWriteItems of its own Put
   * and one Update per unfinished parent, and DynamoDB takes at most 100 items in one.
   */
  MAX_PARENTS: 99,
  /**
   * Most dependents one task may have: their ids are kept on its record, which every one of
   * its writes pays for (docs/adr/0030-dependencies.md).
   */
  MAX_DEPENDENTS: 100,
  /** A finished parent whose dependents are still unreleased this long is released by the sweeper. */
  RELEASE_GRACE_MS: 60_000,
  /**
   * Largest checkpoint or step result kept inline (on the record, in the step's item), as
   * UTF-8 JSON; above it, the payload bucket holds it, and without one it is refused.
   */
  MAX_INLINE_DURABLE_BYTES: 4 * 1024,
  /** `maxContinuations` when a task type sets none. */
  MAX_CONTINUATIONS: 10,
  /** Highest accepted `maxContinuations`: SQS's highest `maxReceiveCount`. */
  MAX_CONTINUATIONS_LIMIT: 1000,
  /** The work queue's `maxReceiveCount` when none is given (the construct's default). */
  MAX_RECEIVE_COUNT: 50,
  /**
   * Receives a continuing task keeps free below `maxReceiveCount`, besides its attempts and
   * continuations: duplicate deliveries, outages given back, rate-limit deferrals.
   */
  RECEIVE_HEADROOM: 5,
  /** Most steps one run of a task may store (its replay reads them 100 per request). */
  MAX_STEPS: 1000,
  /**
   * How long a step item outlives its write beyond the task's retention: the longest a
   * durable task may still be running after a step (its retry horizon, at most 7 days, plus
   * its continuations), so no step expires under a live task (docs/adr/0047-durable-tasks.md).
   */
  STEP_HORIZON_MS: 21 * 24 * 60 * 60 * 1000,
  /**
   * A step beats the lease first when its last write is older than this, so that a cancel
   * request is seen at the next step within this long (docs/durable-tasks.md).
   */
  STEP_BEAT_MS: 10_000,
  /**
   * Most signals one task may be sent (in its current step epoch): a run reads them 100 per
   * request, and each is an item of its own (docs/adr/0048-durable-sleep-signals-pause.md).
   */
  MAX_SIGNALS: 1000,
  /** Largest signal data kept inline, as UTF-8 JSON; the payload bucket above it. */
  MAX_INLINE_SIGNAL_BYTES: 4 * 1024,
  /** Largest signal data with a payload bucket, as UTF-8 JSON. */
  MAX_SIGNAL_BYTES: 256 * 1024,
  /**
   * A SUSPENDED task due (its timer ended, or a signal it waits for arrived) and still not
   * claimed this long after is woken again by the sweeper: its wake was lost.
   */
  SUSPENDED_WAKE_GRACE_MS: 30_000,
} as const;

/** Names of the table's key attributes and its status index (shared by store, provisioning and CDK). */
export const TableSchema = {
  PARTITION_KEY: 'pk',
  STATUS_INDEX: 'byStatus',
  STATUS_INDEX_PARTITION_KEY: 'statusShard',
  STATUS_INDEX_SORT_KEY: 'statusAt',
  /**
   * What the status index projects besides its keys and the table's key: what the counts by
   * type and by lane, the list filters and `watch()`'s change filter read. Readers get everything else
   * from the item (docs/adr/0021-sparse-status-index.md).
   */
  STATUS_INDEX_PROJECTION: ['type', 'orderingKey', 'updatedAt', 'lane'],
  TTL_ATTRIBUTE: 'expiresAt',
  /**
   * What the table's stream records carry: the item before and after each write, so that a
   * reader finds the history entries each write added by comparing the two, and needs no
   * memory of earlier records (docs/adr/0049-watch-reads-the-table-stream.md).
   */
  STREAM_VIEW_TYPE: 'NEW_AND_OLD_IMAGES',
} as const;

/** Version tag of the message body the SDK sends, so a worker can reject foreign messages. */
export const MESSAGE_SCHEMA_VERSION = 1;

/** How a debounced task treats the enqueues it absorbs. */
export const DebounceMode = {
  /** Replaces the payload and moves the start to the end of a new window. */
  LAST: 'last',
  /** Keeps the first payload and start; later enqueues are dropped (throttle). */
  FIRST: 'first',
} as const;

/** One of the {@link DebounceMode} values. */
export type DebounceMode = (typeof DebounceMode)[keyof typeof DebounceMode];

/**
 * The prefix of a suspended task's wake schedule (docs/adr/0048-durable-sleep-signals-pause.md):
 * a hashed delayed task's prefix (`task_`) and a letter that is not hex, so never a delayed
 * task's name; the worker may create only these.
 */
export const WAKE_SCHEDULE_PREFIX = 'task_w';
