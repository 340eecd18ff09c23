/**
 * The client's side of `dependsOn` (docs/dependencies.md): checking the options at the
 * boundary, before anything is written.
 */
import { Defaults, OnParentDead } from '../core/constants.js';
import type { ValidationIssue } from '../core/errors.js';
import { DependencyError } from '../core/errors.js';

/** SQS's MessageGroupId alphabet, which task ids share (see prepare.ts). */
const ID_PATTERN = /^[\x21-\x7e]{1,128}$/;

/** The dependency options of one enqueue, once checked. */
export interface CheckedDependencies {
  /** Distinct parent ids, in the order first given; undefined without `dependsOn`. */
  readonly parents: readonly string[] | undefined;
  /** `'run'` when given; the default, `'cancel'`, is stored as nothing. */
  readonly onParentDead: 'run' | undefined;
}

/**
 * Checks `dependsOn` and `onParentDead`: the shape of each (as validation issues, reported
 * with the enqueue's others), then what only dependencies can get wrong.
 *
 * @throws DependencyError when the task depends on itself, on more than
 *   `Defaults.MAX_PARENTS` parents, or is also delayed.
 */
export function checkDependencies(
  issues: ValidationIssue[],
  options: { readonly dependsOn?: unknown; readonly onParentDead?: unknown },
  id: string,
  delayed: boolean,
): CheckedDependencies {
  const { dependsOn, onParentDead } = options;
  const policies = Object.values(OnParentDead) as unknown[];
  if (onParentDead !== undefined && !policies.includes(onParentDead)) {
    issues.push({
      path: 'options.onParentDead',
      message: `expected 'cancel' or 'run', received ${JSON.stringify(onParentDead) ?? typeof onParentDead}`,
    });
  }
  if (dependsOn === undefined) {
    if (onParentDead !== undefined) {
      issues.push({ path: 'options.onParentDead', message: 'expected only with dependsOn' });
    }
    return { parents: undefined, onParentDead: undefined };
  }
  if (!Array.isArray(dependsOn) || dependsOn.length === 0) {
    issues.push({
      path: 'options.dependsOn',
      message: `expected a non-empty array of task ids, received ${Array.isArray(dependsOn) ? 'an empty array' : typeof dependsOn}`,
    });
    return { parents: undefined, onParentDead: undefined };
  }
  dependsOn.forEach((parent: unknown, n) => {
    if (typeof parent !== 'string' || !ID_PATTERN.test(parent)) {
      issues.push({
        path: `options.dependsOn.${n}`,
        message: `expected a task id (1-128 printable ASCII characters without spaces), received ${JSON.stringify(parent) ?? typeof parent}`,
      });
    }
  });
  if (issues.length > 0) return { parents: undefined, onParentDead: undefined };
  const parents = [...new Set(dependsOn as string[])];
  if (parents.includes(id)) {
    throw new DependencyError(id, 'cycle', [id], 'depends on itself');
  }
  if (parents.length > Defaults.MAX_PARENTS) {
    throw new DependencyError(
      id,
      'too-many-parents',
      [],
      `depends on ${parents.length} tasks; at most ${Defaults.MAX_PARENTS} parents are allowed (fan in through intermediate tasks)`,
    );
  }
  if (delayed) {
    throw new DependencyError(
      id,
      'delayed',
      parents,
      'has both dependsOn and runAt/delay; a dependent starts when its parents finish, so give one or the other',
    );
  }
  return { parents, onParentDead: onParentDead === OnParentDead.RUN ? 'run' : undefined };
}
