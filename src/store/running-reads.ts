/**
 * The sweeper's reads of RUNNING tasks, which the status index no longer keys
 * (docs/adr/0052-running-leaves-the-status-index.md): the records named by dead-letter
 * messages, 100 per BatchGetItem, and the opt-in Scan of RUNNING tasks whose lease ended.
 * A part of the store (`TaskStore.part`), so that the worker's bundle leaves it out
 * (docs/adr/0006-worker-bundle.md).
 */
import { TaskStatus } from '../core/constants.js';
import type { TaskRecord } from '../core/record.js';
import { getItems } from './batch-get.js';
import { fromItem } from './record.js';
import { scanStatuses } from './status-scan.js';
import type { WriteContext } from './store-context.js';

/** One page of {@link RunningReads.expired}. */
export interface RunningPage {
  /** The RUNNING tasks of the page whose lease ended before the scan's instant. */
  readonly records: readonly TaskRecord[];
  /** Read capacity DynamoDB reported for the page (0 where the endpoint reports none). */
  readonly readUnits: number;
}

/** Reads of RUNNING tasks for the sweeper. */
export class RunningReads {
  constructor(private readonly ctx: WriteContext) {}

  /**
   * The records of `ids` (duplicates read once, missing ids left out), eventually
   * consistent: every repair is a conditional write fenced by what it read, so a stale copy
   * can only lose a race, never break a guarantee.
   */
  async records(ids: readonly string[]): Promise<TaskRecord[]> {
    if (ids.length === 0) return [];
    const items = await getItems(this.ctx.doc, this.ctx.tableName, ids);
    return [...items.values()].map(fromItem);
  }

  /**
   * Every RUNNING task whose lease ended before `before`, a Scan page at a time: the next
   * page is read only when the caller asks for it. It reads, and is charged for, every item
   * of the table (its size / 4 KB read units, eventually consistent: half that).
   */
  async *expired(
    before: number,
    options: { readonly pageSize?: number | undefined } = {},
  ): AsyncGenerator<RunningPage, void, undefined> {
    // The Scan filters on the status; the lease is checked here, on the RUNNING items it
    // returns: DynamoDB charges for every item it reads either way, and the filter stays out
    // of the Scan the worker's bundle carries (docs/adr/0006-worker-bundle.md).
    const pages = scanStatuses(this.ctx.doc, this.ctx.tableName, [TaskStatus.RUNNING], {
      ...(options.pageSize === undefined ? {} : { pageSize: options.pageSize }),
    });
    for await (const page of pages) {
      const records = page.items
        .map((item) => fromItem(item))
        .filter((record) => (record.leaseExpiresAt ?? 0) < before);
      yield { records, readUnits: page.readUnits };
    }
  }
}
