/**
 * Checking the task ids a caller looks up, cancels, waits for or redrives, before any call:
 * an id no task can have (empty, not a string, a space, over 128 characters) is the caller's
 * mistake, and says so as a ValidationError instead of DynamoDB's raw `ValidationException`
 * (an empty key) or a silent "no such task".
 */
import { ValidationError, type ValidationIssue } from '../core/errors.js';

/**
 * What every task id matches: SQS's MessageGroupId alphabet (printable ASCII without space),
 * 1 to 128 characters. Generated ids, idempotency keys, firings (`<schedule>@<time>`) and
 * debounced tasks' ids all do.
 */
export const TASK_ID_PATTERN = /^[\x21-\x7e]{1,128}$/;

/** What an id must be, said in every issue. */
const EXPECTED = 'expected a task id (1-128 printable ASCII characters without spaces)';

/** The issue for `id` at `path`, or undefined when it could be a task's id. */
export function taskIdIssue(id: unknown, path: string): ValidationIssue | undefined {
  if (typeof id === 'string' && TASK_ID_PATTERN.test(id)) return undefined;
  return { path, message: `${EXPECTED}, received ${describe(id)}` };
}

/**
 * Returns `id` when it could be a task's id.
 *
 * @throws ValidationError naming `subject` (e.g. `get`), quoting what was received.
 */
export function assertTaskId(id: unknown, subject: string, path = 'id'): string {
  const issue = taskIdIssue(id, path);
  if (issue !== undefined) throw new ValidationError(subject, [issue]);
  return id as string;
}

/** One issue per element of `ids` that cannot be a task's id, at `<path>.<n>`. */
export function taskIdsIssues(ids: readonly unknown[], path: string): ValidationIssue[] {
  return ids.flatMap((id, n) => taskIdIssue(id, `${path}.${n}`) ?? []);
}

function describe(value: unknown): string {
  if (typeof value === 'string') {
    const quoted = JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}…` : value);
    return value.length > 80 ? `${quoted} (${value.length} characters)` : quoted;
  }
  if (value === null) return 'null';
  return Array.isArray(value) ? 'an array' : typeof value;
}
