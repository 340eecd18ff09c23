/**
 * The task record as the SDK, the worker and the operator tools see it: types only. How a
 * record is stored (attribute names, what an item leaves out) is the store's business
 * (`store/record.ts`); this module knows no DynamoDB.
 */
import type { AuditEvent, DebounceMode, OnDead, TaskStatus } from './constants.js';

/**
 * A task as stored in DynamoDB: the source of truth for "has this task run?".
 * Times are epoch milliseconds.
 */
export interface TaskRecord {
  readonly id: string;
  readonly type: string;
  readonly status: TaskStatus;
  /**
   * The payload as enqueued (before schema transforms). Undefined when it is claim-checked:
   * then {@link payloadRef} says where it is.
   */
  readonly payload: unknown;
  /** A payload above the threshold, stored in the payload bucket (docs/large-payloads.md). */
  readonly payloadRef: ObjectRef | undefined;
  /** SHA-256 of the canonical JSON of type and payload; detects idempotency conflicts. */
  readonly payloadHash: string;
  /** Attempts started so far. */
  readonly attempt: number;
  readonly maxAttempts: number;
  readonly orderingKey: string | undefined;
  /** SQS MessageGroupId: the ordering key, or an unkeyed group of its own (core/message.ts). */
  readonly messageGroupId: string;
  /** Bumped on every (re)send, so each send gets a fresh SQS deduplication id. */
  readonly generation: number;
  readonly timeoutMs: number;
  readonly createdAt: number;
  /**
   * The producer's enqueue order: a monotonic ULID taken in call order, and in input order
   * within an `enqueueBatch`, before the concurrent writes. Absent on tasks a worker created
   * (recurring firings). See {@link compareEnqueueOrder}.
   */
  readonly sequence: string | undefined;
  readonly updatedAt: number;
  readonly runAt: number | undefined;
  readonly leaseToken: string | undefined;
  readonly leaseExpiresAt: number | undefined;
  readonly workerId: string | undefined;
  /**
   * The handler's result. For a claim-checked result, `TaskClient.get` fills it from S3
   * (unless `{ fetch: false }`); the stored record holds only {@link resultRef}.
   */
  readonly result: unknown;
  /** A result above the threshold, stored in the payload bucket. */
  readonly resultRef: ObjectRef | undefined;
  readonly lastError: TaskErrorInfo | undefined;
  readonly deadReason: string | undefined;
  readonly finishedAt: number | undefined;
  /**
   * A delayed task only: an enqueue other than the one that wrote the record found or made
   * its schedule and reported the task as enqueued. The writing enqueue then no longer rolls
   * it back when its own CreateSchedule fails (ADR 0009).
   */
  readonly scheduleConfirmed: boolean;
  /**
   * The sweeper requeued the task after its attempt lost the lease, and nobody has claimed
   * it since: its next claim is a lease takeover, which runs alone (ADR 0007). Cleared by
   * the claim and by a redrive.
   */
  readonly leaseLost: boolean;
  /**
   * Times the sweeper has sent this PENDING task again since it last became PENDING; each
   * one pushes its next re-send further out (docs/adr/0020-claim-without-pre-read.md).
   * Cleared by the claim and by a redrive.
   */
  readonly resends: number;
  /**
   * The task's transitions, oldest first, within a byte budget: once past it, the entries
   * between the first one and the newest ones are folded into {@link historyTruncated}.
   * Heartbeats are not entries (see {@link heartbeats}). Every entry also went to the log.
   */
  readonly history: readonly HistoryEntry[];
  /** History entries folded away to keep the history within its budget (0 when none). */
  readonly historyTruncated: number;
  /** Heartbeats (lease extensions) recorded over all attempts, counted instead of listed. */
  readonly heartbeats: number;
  /** When the latest heartbeat was recorded (epoch ms); undefined before the first. */
  readonly lastHeartbeatAt: number | undefined;
  /**
   * The integrity tag (`v2:<base64 KMS HMAC>:<key>` over the payload and the fields that
   * decide how and where the task runs; a bare base64 MAC for a version-1 tag) when the
   * producer had integrity on; see docs/security.md.
   */
  readonly integrityTag: string | undefined;
  /**
   * The W3C `traceparent` of the span that enqueued the task, when the producer traced with
   * OpenTelemetry: each attempt's span links to it (docs/tracing.md). As stored: a value that
   * is not a valid `traceparent` is ignored by the worker, which logs why. Not covered by the
   * integrity tag: it decides nothing about the run.
   */
  readonly traceparent?: string;
  /**
   * The latest details a handler reported with `ctx.progress()` (JSON, at most 4 KB), as
   * written by its lease's heartbeat; undefined before any. Never part of the history.
   */
  readonly progress: unknown;
  /** When {@link progress} was written (epoch ms). */
  readonly progressAt: number | undefined;
  /**
   * `client.cancel` asked a RUNNING task to stop, and it has not stopped yet: its worker ends
   * it CANCELLED once it sees the request (docs/progress-and-cancel.md).
   */
  readonly cancelRequested: boolean;
  /** When the cancel of a running task was requested (epoch ms); kept once it has stopped. */
  readonly cancelRequestedAt: number | undefined;
  /**
   * `'park'` when the task's type parks its ordering key on death (written at enqueue, so
   * the sweeper knows it too); absent for the default, `'release'`.
   */
  readonly onDead?: typeof OnDead.PARK | undefined;
  /**
   * On a DEAD task: the ordering key it parked, held by its message until it is redriven or
   * the key is released (docs/adr/0024-parked-keys.md).
   */
  readonly parkedKey?: string | undefined;
  /** The tasks this one was enqueued to wait for (`dependsOn`), in the order given. */
  readonly parents?: readonly string[] | undefined;
  /** On a WAITING task: parents not yet counted as finished; it starts when this reaches 0. */
  readonly waitingOn?: number | undefined;
  /** `'run'` when a DEAD or CANCELLED parent counts as finished; absent for `'cancel'`. */
  readonly onParentDead?: 'run' | undefined;
  /** Parents whose outcome this task has already counted (makes each release idempotent). */
  readonly releasedBy?: readonly string[] | undefined;
  /** Tasks that wait for this one (docs/adr/0030-dependencies.md). */
  readonly dependents?: readonly string[] | undefined;
  /**
   * The lane whose queue the task's messages go to, from its type's definition (written at
   * creation, so every re-send goes there too); absent for the default lane
   * (docs/adr/0028-lanes.md).
   */
  readonly lane?: string | undefined;
  /** A task enqueued with `debounce`: its key and mode, and the enqueues it absorbed. */
  readonly debounce?: DebounceInfo | undefined;
  /**
   * A durable task's last checkpoint (`ctx.saveCheckpoint`), when it was kept inline; see
   * {@link checkpointRef} for one in the payload bucket (docs/durable-tasks.md).
   */
  readonly checkpoint?: unknown;
  /** The last checkpoint, when it was larger than 4 KB and went to the payload bucket. */
  readonly checkpointRef?: ObjectRef | undefined;
  /** When the last checkpoint was saved (epoch ms). */
  readonly checkpointAt?: number | undefined;
  /** Slices this run of the task ended with `ctx.continue()`; a redrive starts again at 0. */
  readonly continuations?: number | undefined;
  /**
   * A slice ran the handler and was given back without spending its attempt (an S3 outage
   * met by a durable task's step or checkpoint): the steps it stored are read by the next
   * slice, though that starts the same attempt (docs/adr/0047-durable-tasks.md).
   */
  readonly ranUnspent?: boolean | undefined;
  /**
   * A claim of this task was given back without spending its attempt (a dependency outage
   * at the start, docs/adr/0034-dependency-outages.md): the attempt is back where it was, but
   * the task was taken, so a debounce fold no longer changes it
   * (docs/adr/0064-a-given-back-claim-ends-the-debounce-window.md).
   */
  readonly unclaimed?: boolean | undefined;
  /**
   * Which set of step items the task's steps are: a redrive with `restart` moves to a new
   * one, which leaves the old steps unread (docs/adr/0047-durable-tasks.md). 0 when absent.
   */
  readonly stepEpoch?: number | undefined;
  /** The stored steps, in call order: only when read with `get(id, { steps: true })`. */
  readonly steps?: readonly StepInfo[] | undefined;
}

/** One stored step of a durable task (docs/durable-tasks.md). */
export interface StepInfo {
  /** Its position in the run, from 0. */
  readonly index: number;
  readonly name: string;
  /** When its result was stored (epoch ms). */
  readonly at: number;
  /** The stored result's size, as UTF-8 JSON bytes. */
  readonly sizeBytes: number;
  /** The attempt whose run stored it. */
  readonly attempt: number;
  /** The worker whose run stored it. */
  readonly workerId?: string | undefined;
}

/** The error a failed attempt left behind. */
export interface TaskErrorInfo {
  readonly name: string;
  readonly message: string;
}

/** One entry of a task's history: an audit record without the task's own identity. */
export interface HistoryEntry {
  readonly event: AuditEvent;
  /** Epoch milliseconds. */
  readonly at: number;
  readonly attempt: number;
  /** Status after the event. */
  readonly status: TaskStatus;
  /**
   * The worker: its id as the record stores it, the full id up to 16 characters, else a
   * short stable digest of it (`~` and 9 characters) that the audit log's `workerRef`
   * field maps to the full id (docs/adr/0027-compact-history.md).
   */
  readonly workerId?: string;
  readonly detail?: string;
  /**
   * The operator who acted, for an operator's action (redrive, cancel, key release): the STS
   * caller identity of the client's credentials, or `unknown principal (<why>)`
   * (docs/adr/0039-operator-audit.md). Absent from workers' and the sweeper's entries.
   */
  readonly principal?: string;
}

/** Where a claim-checked payload or result is, and what it must be. */
export interface ObjectRef {
  readonly bucket: string;
  readonly key: string;
  /** Bytes of the object (UTF-8 JSON). */
  readonly size: number;
  /** Hex SHA-256 of the object's bytes. */
  readonly sha256: string;
}

/** What a debounced task shows (docs/debounce.md); its window ends at `runAt`. */
export interface DebounceInfo {
  readonly key: string;
  readonly mode: DebounceMode;
  /** Later enqueues folded into this task (0 when only the first one). */
  readonly absorbed: number;
}

/**
 * Shortens text to at most `max` UTF-16 units, ending with '…' when cut. Never splits a
 * surrogate pair: half an emoji is not valid UTF-8, and DynamoDB rejects such strings.
 */
export function truncate(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = max - 1;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end -= 1;
  return `${text.slice(0, end)}…`;
}
