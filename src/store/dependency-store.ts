/**
 * The store's side of task dependencies (docs/adr/0030-dependencies.md): creating a task
 * that waits for parents, counting a finished parent on it, releasing or cancelling it, and
 * the release partition that lets the sweeper finish a release a crash interrupted.
 *
 * The edges are kept on the records themselves: the child lists its `parents`, each parent
 * its `dependents` (a string set, at most `Defaults.MAX_DEPENDENTS`). A parent that has a
 * dependent also holds `releaseShard`: its terminal write then files it under that index
 * partition instead of its status's (see transitions/move.ts), and it leaves it only once
 * every dependent has counted its outcome.
 */
import { Defaults, isTerminal, TaskStatus } from '../core/constants.js';
import { DependencyError, TransitionRejectedError } from '../core/errors.js';
import type { TaskRecord } from '../core/record.js';
import { auditEntry } from '../observability/audit.js';
import { type NewTask, newTaskItem } from './new-task.js';
import { fromItem } from './record.js';
import { createdAfter } from './record-writes.js';
import { entryId, partitionPages } from './status-index.js';
import { RELEASE_PARTITION } from './status-index-keys.js';
import type { WriteContext } from './store-context.js';
import type { ReleaseInput } from './transitions/dependencies.js';
import * as dependencies from './transitions/dependencies.js';
import { writeTransition } from './transitions/move.js';
import * as records from './transitions/records.js';
import { part, recordOf, send, transact } from './transitions/writer.js';

export { RELEASE_PARTITION } from './status-index-keys.js';

/** Rounds of {@link DependencyStore.create} before it gives up on parents that keep moving. */
const CREATE_ROUNDS = 8;

/** Reads and writes the dependency attributes of task records. */
export class DependencyStore {
  constructor(private readonly ctx: WriteContext) {}

  /**
   * Creates a task that waits for `task.parents`, without reading them first: one
   * TransactWriteItems of the child's Put (as any create: unless the id exists) and, for
   * each parent not known to be finished, an Update that adds the child to its `dependents`
   * under the condition that it exists, is unfinished and has room. A refused Update returns
   * the parent as it is (ALL_OLD): a SUCCEEDED one (or, with `onParentDead: 'run'`, a DEAD
   * or CANCELLED one) is then counted at once and the transaction written again without it.
   * When no parent is left to wait for, the task is created PENDING.
   *
   * @throws DependencyError for an unknown parent, a full parent, or a parent that already
   *   failed when the task would be cancelled by it.
   */
  async create(task: NewTask): Promise<{ record: TaskRecord; created: boolean }> {
    const finished: string[] = [];
    // Past a rolled-back record of the id created at or after this producer's clock.
    let floor = 0;
    for (let round = 0; ; round++) {
      const unfinished = (task.parents ?? []).filter((id) => !finished.includes(id));
      const now = Math.max(this.ctx.clock(), floor);
      const waiting = { waitingOn: unfinished.length, releasedBy: finished };
      const { item, entry } = newTaskItem(this.ctx, task, now, waiting);
      const sent = await transact(this.ctx, [
        part(records.create, { item }),
        ...unfinished.map((parentId) =>
          part(dependencies.addDependent, { parentId, childId: task.id }),
        ),
      ]);
      if (!sent.accepted) {
        if (round + 1 >= CREATE_ROUNDS) throw sent.error;
        const existing = recordOf(sent.items[0]?.current);
        const later = existing === undefined ? undefined : createdAfter(existing, now);
        if (later !== undefined) {
          floor = later;
          continue;
        }
        if (existing !== undefined) return { record: existing, created: false };
        unfinished.forEach((parentId, n) => {
          const refusal = sent.items[n + 1];
          if (refusal?.refused !== true) return;
          if (judgeParent(task, parentId, recordOf(refusal.current)) === 'counted') {
            finished.push(parentId);
          }
        });
        // Other writers on the same parents (TransactionConflict): back off with jitter.
        await new Promise((resolve) => setTimeout(resolve, Math.random() * 25 * 2 ** round));
        continue;
      }
      const record = fromItem(item);
      auditEntry(this.ctx.logger, record, entry);
      return { record, created: true };
    }
  }

  /**
   * Counts a finished parent on a WAITING child with other parents left: `waitingOn` - 1 and
   * the parent added to `releasedBy`, under `waitingOn` still being what was read and the
   * parent not yet counted. Not a transition: the child stays WAITING, its history unchanged.
   *
   * @throws TransitionRejectedError with the child as DynamoDB held it, when either moved.
   */
  async countParent(seen: TaskRecord, parentId: string): Promise<TaskRecord> {
    const sent = await send(this.ctx, dependencies.countParent, { seen, parentId });
    if (sent.accepted) return fromItem(sent.item ?? {});
    throw new TransitionRejectedError(
      dependencies.countParent.name,
      seen.id,
      recordOf(sent.current),
    );
  }

  /** WAITING → PENDING for its last parent (see `releaseWaiting`). */
  release(input: ReleaseInput): Promise<TaskRecord> {
    return this.write(dependencies.releaseWaiting, input);
  }

  /** WAITING → CANCELLED for a parent that did not succeed (see `cancelWaiting`). */
  cancel(input: ReleaseInput): Promise<TaskRecord> {
    return this.write(dependencies.cancelWaiting, input);
  }

  /**
   * Files a finished parent whose dependents have all counted its outcome back under its
   * status's index partition (DEAD), or takes it out of the index (SUCCEEDED, CANCELLED,
   * ROLLED_BACK). Conditional on it still being finished in that status and in a release
   * partition, whichever shard: the producer that registered the first dependent chose it
   * with its own `statusShards`, which may be lower than this writer's during a rolling raise
   * (docs/adr/0031-dependency-fences.md). Returns false when it was not (nothing to do, or
   * it moved on).
   */
  async finishRelease(parent: Pick<TaskRecord, 'id' | 'status'>): Promise<boolean> {
    return (await send(this.ctx, dependencies.finishRelease, { parent })).accepted;
  }

  /**
   * Ids of finished parents still in the release partition whose last write is older than
   * `before`, a page at a time (through the status index, never a Scan).
   */
  async *pendingReleases(before: number): AsyncGenerator<readonly string[], void, undefined> {
    for (let shard = 0; shard < this.ctx.statusShards; shard++) {
      const partition = `${RELEASE_PARTITION}#${shard}`;
      for await (const page of partitionPages(this.ctx, { partition, before })) {
        yield page.items.map(entryId);
      }
    }
  }

  private write<I>(transition: Parameters<typeof writeTransition<I>>[1], input: I) {
    return writeTransition(this.ctx, transition, input);
  }
}

/**
 * Why a parent refused a new dependent: it is `counted` (finished in a way that counts as
 * done); otherwise the enqueue cannot go on, and this throws the DependencyError saying why.
 * A parent still unfinished refused only because it moved meanwhile: `retry`.
 */
function judgeParent(
  task: NewTask,
  parentId: string,
  parent: TaskRecord | undefined,
): 'counted' | 'retry' {
  const fail = (problem: DependencyError['problem'], detail: string): never => {
    throw new DependencyError(task.id, problem, [parentId], detail);
  };
  if (parent === undefined || parent.status === TaskStatus.ROLLED_BACK) {
    return fail(
      'unknown-parent',
      `depends on '${parentId}', but no task has that id; enqueue parents before their dependents`,
    );
  }
  if (!isTerminal(parent.status)) {
    if ((parent.dependents?.length ?? 0) >= Defaults.MAX_DEPENDENTS) {
      return fail(
        'too-many-dependents',
        `cannot depend on '${parentId}': it already has ${Defaults.MAX_DEPENDENTS} dependents, the most a task may have`,
      );
    }
    return 'retry';
  }
  if (parent.status === TaskStatus.SUCCEEDED || task.onParentDead === 'run') return 'counted';
  return fail(
    'parent-dead',
    `depends on '${parentId}', which is already ${parent.status}; with onParentDead 'cancel' it could never run (redrive the parent first, or pass onParentDead: 'run')`,
  );
}
