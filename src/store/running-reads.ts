/**
 * The sweeper's reads of the tasks the status index does not key while they still need it:
 * RUNNING tasks (docs/adr/0052-running-leaves-the-status-index.md) and QUEUED tasks waiting
 * out a retry delay off the index (docs/adr/0068-a-retry-stays-off-the-index.md). They are
 * the records named by dead-letter messages, 100 per BatchGetItem, and the opt-in Scan of
 * RUNNING tasks whose lease ended and of retrying tasks long overdue. A part of the store
 * (`TaskStore.part`), so that the worker's bundle leaves it out
 * (docs/adr/0006-worker-bundle.md).
 */
import { TableSchema, TaskStatus } from '../core/constants.js';
import type { TaskRecord } from '../core/record.js';
import { getItems } from './batch-get.js';
import { fromItem } from './record.js';
import { scanStatuses } from './status-scan.js';
import type { WriteContext } from './store-context.js';

/** Records read for the sweeper's repairs, by how they are repaired. */
export interface LostCandidates {
  /** Every record read but the retrying ones; the RUNNING repair checks status and lease. */
  readonly records: readonly TaskRecord[];
  /** QUEUED off the index, due before the read's `queuedBefore`: to be sent again. */
  readonly retrying: readonly TaskRecord[];
}

/** One page of {@link RunningReads.expired}. */
export interface RunningPage extends LostCandidates {
  /** Read capacity DynamoDB reported for the page (0 where the endpoint reports none). */
  readonly readUnits: number;
}

/**
 * True for a QUEUED item off the status index (a retry's, ADR 0068) whose due time, its
 * `statusAt`, is before `before`.
 */
export function retryingOverdue(item: Record<string, unknown>, before: number): boolean {
  const dueAt = item[TableSchema.STATUS_INDEX_SORT_KEY];
  return (
    item.status === TaskStatus.QUEUED &&
    item[TableSchema.STATUS_INDEX_PARTITION_KEY] === undefined &&
    typeof dueAt === 'number' &&
    dueAt < before
  );
}

/** Reads of unkeyed live tasks for the sweeper. */
export class RunningReads {
  constructor(private readonly ctx: WriteContext) {}

  /**
   * The records of `ids` (duplicates read once, missing ids left out), eventually
   * consistent: every repair is a conditional write fenced by what it read, so a stale copy
   * can only lose a race, never break a guarantee. Retrying tasks due before `queuedBefore`
   * are set apart.
   */
  async records(ids: readonly string[], queuedBefore: number): Promise<LostCandidates> {
    if (ids.length === 0) return { records: [], retrying: [] };
    const items = await getItems(this.ctx.doc, this.ctx.tableName, ids);
    return split([...items.values()], queuedBefore);
  }

  /**
   * Every RUNNING task whose lease ended before `before`, and every retrying task off the
   * index due before `queuedBefore`, a Scan page at a time: the next page is read only when
   * the caller asks for it. It reads, and is charged for, every item of the table (its size
   * / 4 KB read units, eventually consistent: half that).
   */
  async *expired(
    before: number,
    queuedBefore: number,
    options: { readonly pageSize?: number | undefined } = {},
  ): AsyncGenerator<RunningPage, void, undefined> {
    // The Scan filters on the status; the lease and the due time are checked here, on the
    // items it returns: DynamoDB charges for every item it reads either way.
    const pages = scanStatuses(this.ctx.doc, this.ctx.tableName, [TaskStatus.RUNNING], {
      offIndexQueued: true,
      ...(options.pageSize === undefined ? {} : { pageSize: options.pageSize }),
    });
    for await (const page of pages) {
      const { records, retrying } = split(page.items, queuedBefore);
      yield {
        records: records.filter(
          (record) => record.status === TaskStatus.RUNNING && (record.leaseExpiresAt ?? 0) < before,
        ),
        retrying,
        readUnits: page.readUnits,
      };
    }
  }
}

function split(items: readonly Record<string, unknown>[], queuedBefore: number): LostCandidates {
  const records: TaskRecord[] = [];
  const retrying: TaskRecord[] = [];
  for (const item of items) {
    (retryingOverdue(item, queuedBefore) ? retrying : records).push(fromItem(item));
  }
  return { records, retrying };
}
