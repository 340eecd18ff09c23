/**
 * A small structural checker for the message bodies the worker reads, without a schema
 * library: the worker's cold start does not build schemas to parse three fields. It reports
 * each problem as a path and a code (`invalid_type`, `invalid_value`, `too_small`, `too_big`,
 * `invalid_format`, `custom`, `unrecognized_keys`), never a value, and paths only ever name
 * the expected keys, so nothing from the body reaches a reason.
 */

/** One problem found: where, and what kind. */
export interface CheckIssue {
  readonly path: string;
  readonly code: string;
}

/** Checks a value, adding what is wrong to `issues`. */
export type Check = (value: unknown, path: string, issues: CheckIssue[]) => void;

const join = (path: string, key: string) => (path === '' ? key : `${path}.${key}`);

/** A string of `min` to `max` characters, matching `pattern` and `refine` when given. */
export function text(
  min: number,
  max: number,
  pattern?: RegExp,
  refine?: (value: string) => boolean,
): Check {
  return (value, path, issues) => {
    if (typeof value !== 'string') issues.push({ path, code: 'invalid_type' });
    else if (value.length < min) issues.push({ path, code: 'too_small' });
    else if (value.length > max) issues.push({ path, code: 'too_big' });
    else if (pattern !== undefined && !pattern.test(value)) {
      issues.push({ path, code: 'invalid_format' });
    } else if (refine !== undefined && !refine(value)) issues.push({ path, code: 'custom' });
  };
}

/** A whole number from `min` to `max`. */
export function integer(min: number, max: number): Check {
  return (value, path, issues) => {
    if (typeof value !== 'number' || !Number.isInteger(value)) {
      issues.push({ path, code: 'invalid_type' });
    } else if (value < min) issues.push({ path, code: 'too_small' });
    else if (value > max) issues.push({ path, code: 'too_big' });
  };
}

/** Exactly `expected`. */
export function literal(expected: string | number): Check {
  return (value, path, issues) => {
    if (value !== expected) issues.push({ path, code: 'invalid_value' });
  };
}

/** `check`, or absent. */
export function optional(check: Check): Check {
  return (value, path, issues) => {
    if (value !== undefined) check(value, path, issues);
  };
}

/** Any value, or none. */
export const anything: Check = () => undefined;

/** A plain object with these keys (each checked) and no others. */
export function strictObject(shape: Readonly<Record<string, Check>>): Check {
  return (value, path, issues) => {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      issues.push({ path, code: 'invalid_type' });
      return;
    }
    const record = value as Record<string, unknown>;
    for (const [key, check] of Object.entries(shape)) {
      check(Object.hasOwn(record, key) ? record[key] : undefined, join(path, key), issues);
    }
    if (Object.keys(record).some((key) => !Object.hasOwn(shape, key))) {
      issues.push({ path, code: 'unrecognized_keys' });
    }
  };
}

/** The issues `check` finds in `value`; none when it passes. */
export function issuesOf(check: Check, value: unknown): CheckIssue[] {
  const issues: CheckIssue[] = [];
  check(value, '', issues);
  return issues;
}
