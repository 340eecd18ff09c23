/**
 * Checks of values that TypeScript already constrains, for callers it cannot: plain
 * JavaScript, `as any`, JSON from elsewhere. A misspelt option (`{ idd: 'x' }`) would
 * otherwise be ignored silently and the task created without the id the caller meant.
 */
import { TaskStatus } from '../core/constants.js';
import { ValidationError, type ValidationIssue } from '../core/errors.js';

/** The options `enqueue` accepts; keep in step with `EnqueueOptions`. */
export const ENQUEUE_OPTION_KEYS = [
  'id',
  'orderingKey',
  'runAt',
  'delay',
  'debounce',
  'dependsOn',
  'onParentDead',
] as const;

/**
 * Adds an issue for `options` that are not an object, and one for each key that is not a
 * known option, quoting the key and listing the known ones.
 */
export function checkOptionKeys(
  issues: ValidationIssue[],
  options: unknown,
  known: readonly string[],
  path = 'options',
): void {
  if (options === undefined) return;
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    issues.push({ path, message: `expected an object, received ${describe(options)}` });
    return;
  }
  for (const key of Object.keys(options)) {
    if (known.includes(key)) continue;
    const hint = closest(key, known);
    issues.push({
      path: `${path}.${key}`,
      message:
        `unknown option ${JSON.stringify(key)}${hint === undefined ? '' : ` (did you mean ${JSON.stringify(hint)}?)`}; ` +
        `expected one of ${known.join(', ')}`,
    });
  }
}

/**
 * Returns `status` when it is a TaskStatus.
 *
 * @throws ValidationError quoting what was received and listing the statuses.
 */
export function assertTaskStatus(status: unknown, subject: string): TaskStatus {
  const statuses = Object.values(TaskStatus) as readonly unknown[];
  if (statuses.includes(status)) return status as TaskStatus;
  throw new ValidationError(subject, [
    {
      path: 'status',
      message: `expected one of ${statuses.join(', ')}, received ${describe(status)}`,
    },
  ]);
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value === 'string') return JSON.stringify(value.slice(0, 80));
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `${typeof value} ${String(value)}`;
}

/** The known key within edit distance 2 of `key`, if any: a likely typo. */
function closest(key: string, known: readonly string[]): string | undefined {
  let best: { key: string; distance: number } | undefined;
  for (const candidate of known) {
    const distance = editDistance(key.toLowerCase(), candidate.toLowerCase());
    if (
      distance <= Math.min(2, candidate.length >> 1) &&
      (best === undefined || distance < best.distance)
    ) {
      best = { key: candidate, distance };
    }
  }
  return best?.key;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1);
      current.push(Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, substitution));
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}
