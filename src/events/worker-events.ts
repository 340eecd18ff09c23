import { AsyncLocalStorage } from 'node:async_hooks';
import type { TaskRecord } from '../core/record.js';
import type { TaskLogger } from '../observability/logger.js';
import type { TaskStore } from '../store/task-store.js';
import {
  type LifecycleEvent,
  LifecycleEventType,
  type TaskEventDetail,
} from './lifecycle-event.js';
import type { EventPublisher } from './publisher.js';
import { failedEvent, terminalEvent } from './record-events.js';

/** An in-process lifecycle hook. Its errors are logged and never fail the task. */
export type LifecycleHook = (event: TaskEventDetail) => void | Promise<void>;

/**
 * In-process hooks of `createWorker`, called once the batch's transitions are written (and
 * its events published, when events are on). Like the events, a hook can be called more
 * than once for one outcome: deduplicate on `taskId`.
 */
export interface LifecycleHooks {
  readonly onSucceeded?: LifecycleHook | undefined;
  /** An attempt failed with attempts left; the task will run again. */
  readonly onFailed?: LifecycleHook | undefined;
  readonly onDead?: LifecycleHook | undefined;
  readonly onCancelled?: LifecycleHook | undefined;
}

interface Noted {
  readonly messageId: string;
  readonly event: LifecycleEvent;
}

/** The events of one batch: collected while it runs, published together at its end. */
export class EventBatch {
  private readonly noted: Noted[] = [];

  constructor(
    private readonly events: WorkerEvents,
    private readonly scope: AsyncLocalStorage<{ batch: EventBatch; messageId: string }>,
  ) {}

  /** Runs the processing of one message; the transitions it writes note their events here. */
  within<T>(messageId: string, work: () => Promise<T>): Promise<T> {
    return this.scope.run({ batch: this, messageId }, work);
  }

  /** @internal Called by {@link WorkerEvents} from inside {@link within}. */
  add(messageId: string, event: LifecycleEvent): void {
    this.noted.push({ messageId, event });
  }

  /**
   * Publishes the batch's events (one PutEvents call per 10 entries or 256 KB), then runs
   * the hooks. Returns the messages to hand back instead of acknowledging: those whose
   * terminal event was not accepted. Their next delivery finds the terminal record and
   * publishes it again (docs/adr/0019-lifecycle-events-at-least-once.md).
   */
  async flush(): Promise<ReadonlySet<string>> {
    return this.events.flush(this.noted);
  }
}

/**
 * The worker's side of lifecycle events and hooks: notes the event of every transition the
 * worker writes, or meets again on a redelivery, and publishes them per batch.
 */
export class WorkerEvents {
  private readonly scope = new AsyncLocalStorage<{ batch: EventBatch; messageId: string }>();

  constructor(
    private readonly publisher: EventPublisher | undefined,
    private readonly hooks: LifecycleHooks,
    private readonly logger: TaskLogger,
  ) {}

  /** A collector for one batch. */
  batch(): EventBatch {
    return new EventBatch(this, this.scope);
  }

  /**
   * The store, with the transitions a worker writes (complete, retry, kill, cancelRunning, and
   * expire of a lease that ran out on the final attempt) noting their event after the write
   * lands. Reads and other writes pass through.
   */
  observe(store: TaskStore): TaskStore {
    const observed = Object.create(store) as TaskStore;
    observed.complete = async (...args) => this.noteTerminal(await store.complete(...args));
    observed.kill = async (...args) => this.noteTerminal(await store.kill(...args));
    observed.expire = async (...args) => this.noteTerminal(await store.expire(...args));
    observed.cancelRunning = async (...args) =>
      this.noteTerminal(await store.cancelRunning(...args));
    observed.retry = async (...args) => {
      const record = await store.retry(...args);
      this.note(failedEvent(record));
      return record;
    };
    return observed;
  }

  /**
   * A terminal record met again: a redelivered message of a finished task, which may be
   * back because its event was not accepted. The event is published again.
   */
  redelivered(record: TaskRecord): void {
    this.noteTerminal(record);
  }

  /** @internal */
  async flush(noted: readonly Noted[]): Promise<ReadonlySet<string>> {
    const hold = new Set<string>();
    if (noted.length === 0) return hold;
    if (this.publisher !== undefined) {
      const accepted = await this.publisher.publish(noted.map((n) => n.event));
      noted.forEach((n, i) => {
        if (accepted[i] === true) return;
        if (n.event.detailType === LifecycleEventType.FAILED) {
          // The message is already on its way back for the retry; see the ADR for why this
          // one is logged in full instead of held.
          this.logger.error('lifecycle event not published', {
            detailType: n.event.detailType,
            detail: n.event.detail,
          });
        } else {
          hold.add(n.messageId);
        }
      });
    }
    await Promise.all(noted.map((n) => this.runHook(n.event)));
    return hold;
  }

  private noteTerminal(record: TaskRecord): TaskRecord {
    const event = terminalEvent(record);
    if (event !== undefined) this.note(event);
    return record;
  }

  private note(event: LifecycleEvent): void {
    const scope = this.scope.getStore();
    if (scope === undefined) {
      // Every worker transition runs inside EventBatch.within; this is a wiring bug.
      this.logger.error('lifecycle event outside a batch; not published', {
        detailType: event.detailType,
        detail: event.detail,
      });
      return;
    }
    scope.batch.add(scope.messageId, event);
  }

  private async runHook(event: LifecycleEvent): Promise<void> {
    const hook = {
      [LifecycleEventType.SUCCEEDED]: this.hooks.onSucceeded,
      [LifecycleEventType.FAILED]: this.hooks.onFailed,
      [LifecycleEventType.DEAD]: this.hooks.onDead,
      [LifecycleEventType.CANCELLED]: this.hooks.onCancelled,
    }[event.detailType];
    if (hook === undefined) return;
    try {
      await hook(event.detail);
    } catch (err) {
      this.logger.error('lifecycle hook failed; the task is not affected', {
        taskId: event.detail.taskId,
        detailType: event.detailType,
        error: err instanceof Error ? `${err.name}: ${err.message}` : String(err),
      });
    }
  }
}
