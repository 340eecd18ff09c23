import pLimit from 'p-limit';

/**
 * How many conditional writes (or sends) run at once where the SDK issues many: a batch's
 * records, the outbox's marks, a redrive. Enough to keep up with SendMessageBatch without
 * bursting the table's capacity.
 */
export const WRITE_CONCURRENCY = 16;

/** How many status-index queries an operator read (a filtered list, counts) runs at once. */
export const QUERY_CONCURRENCY = 8;

/** `fn` over `items`, at most `concurrency` at once; results in input order. */
export function mapConcurrently<T, R>(
  items: readonly T[],
  fn: (item: T, index: number) => Promise<R>,
  concurrency = WRITE_CONCURRENCY,
): Promise<R[]> {
  const limit = pLimit(concurrency);
  return Promise.all(items.map((item, index) => limit(() => fn(item, index))));
}
