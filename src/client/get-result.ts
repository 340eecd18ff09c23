/** The claim-checked result of `TaskClient.get`: read from S3 unless the caller says not to. */
import type { ObjectStore } from '../claim-check/object-store.js';
import type { TaskRecord } from '../core/record.js';

/** Options of `TaskClient.get`. */
export interface GetOptions {
  /**
   * Read a claim-checked result from the payload bucket (one GetObject, checked against its
   * size and SHA-256) and return it as `result`. With `false`, `result` stays undefined and
   * `resultRef` says where the result is. Inline results are returned either way.
   * @default true
   */
  readonly fetch?: boolean | undefined;
  /**
   * Also list a durable task's stored steps as `steps` (name, time, size), read 100 per
   * BatchGetItem (docs/durable-tasks.md). @default false
   */
  readonly steps?: boolean | undefined;
}

/**
 * The record with its claim-checked result filled in, when it has one and `fetch` is on.
 *
 * @throws ClaimCheckMismatchError when the object is missing or is not what the record says.
 */
export async function withResult(
  record: TaskRecord | undefined,
  objects: ObjectStore,
  options: GetOptions,
): Promise<TaskRecord | undefined> {
  if (record?.resultRef === undefined || options.fetch === false) return record;
  const json = await objects.read(record.resultRef);
  return { ...record, result: JSON.parse(json) as unknown };
}
