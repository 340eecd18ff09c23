/**
 * What is wrong with a task record, before a page renders it. A producer may write any
 * attribute of its items (docs/security.md), and the store maps what it finds without
 * judging it; a page that trusted the types would fail on the first odd one, with a 500
 * that names neither the task nor the field. The console checks the fields its pages read,
 * and shows a malformed record as a page (or a list row) that says which field is wrong,
 * what it holds, and what was expected.
 */
import type { TaskRecord } from 'tasklane';
import { STATUSES } from './queries.js';

/** One rule: the field, what it must be, and the test. */
interface Rule {
  readonly field: string;
  readonly expected: string;
  readonly value: (r: TaskRecord) => unknown;
  readonly ok: (v: unknown) => boolean;
}

const isString = (v: unknown): boolean => typeof v === 'string';
const isOptionalString = (v: unknown): boolean => v === undefined || typeof v === 'string';
const isNumber = (v: unknown): boolean => typeof v === 'number' && Number.isFinite(v);
const isOptionalNumber = (v: unknown): boolean => v === undefined || isNumber(v);
const isStatus = (v: unknown): boolean => typeof v === 'string' && STATUSES.includes(v as never);
const isStrings = (v: unknown): boolean =>
  v === undefined || (Array.isArray(v) && v.every((x) => typeof x === 'string'));

const RULES: readonly Rule[] = [
  { field: 'id', expected: 'a string', value: (r) => r.id, ok: isString },
  { field: 'type', expected: 'a string', value: (r) => r.type, ok: isString },
  {
    field: 'status',
    expected: `one of ${STATUSES.join(', ')}`,
    value: (r) => r.status,
    ok: isStatus,
  },
  { field: 'attempt', expected: 'a number', value: (r) => r.attempt, ok: isNumber },
  { field: 'maxAttempts', expected: 'a number', value: (r) => r.maxAttempts, ok: isNumber },
  { field: 'createdAt', expected: 'a time (epoch ms)', value: (r) => r.createdAt, ok: isNumber },
  { field: 'updatedAt', expected: 'a time (epoch ms)', value: (r) => r.updatedAt, ok: isNumber },
  {
    field: 'finishedAt',
    expected: 'a time (epoch ms) or nothing',
    value: (r) => r.finishedAt,
    ok: isOptionalNumber,
  },
  {
    field: 'lastError',
    expected: 'nothing, or { name, message } with two strings',
    value: (r) => r.lastError,
    ok: (v) =>
      v === undefined ||
      (typeof v === 'object' &&
        v !== null &&
        isString((v as { name?: unknown }).name) &&
        isString((v as { message?: unknown }).message)),
  },
  {
    field: 'parents',
    expected: 'a list of task ids or nothing',
    value: (r) => r.parents,
    ok: isStrings,
  },
  {
    field: 'dependents',
    expected: 'a list of task ids or nothing',
    value: (r) => r.dependents,
    ok: isStrings,
  },
  {
    field: 'waitingOn',
    expected: 'a number or nothing',
    value: (r) => r.waitingOn,
    ok: isOptionalNumber,
  },
  { field: 'history', expected: 'a list', value: (r) => r.history, ok: Array.isArray },
];

/** The rules of one history entry. */
const ENTRY_RULES: readonly Omit<Rule, 'value'>[] = [
  { field: 'event', expected: 'a string', ok: isString },
  { field: 'status', expected: `one of ${STATUSES.join(', ')}`, ok: isStatus },
  { field: 'at', expected: 'a time (epoch ms)', ok: isNumber },
  { field: 'attempt', expected: 'a number', ok: isNumber },
  { field: 'workerId', expected: 'a string or nothing', ok: isOptionalString },
  { field: 'detail', expected: 'a string or nothing', ok: isOptionalString },
];

/** At most this many problems are listed: a record can be wrong in every history entry. */
const MAX_PROBLEMS = 20;

/** Every problem of the record's fields the pages show, at most {@link MAX_PROBLEMS}. */
export function recordProblems(record: TaskRecord): string[] {
  const problems: string[] = [];
  for (const rule of RULES) {
    const value = rule.value(record);
    if (!rule.ok(value)) problems.push(problem(rule.field, rule.expected, value));
  }
  if (Array.isArray(record.history)) {
    record.history.forEach((entry: unknown, n) => {
      const fields = (typeof entry === 'object' && entry !== null ? entry : {}) as Record<
        string,
        unknown
      >;
      for (const rule of ENTRY_RULES) {
        const value = fields[rule.field];
        if (!rule.ok(value))
          problems.push(problem(`history[${n}].${rule.field}`, rule.expected, value));
      }
    });
  }
  return problems.length > MAX_PROBLEMS
    ? [...problems.slice(0, MAX_PROBLEMS), `and ${problems.length - MAX_PROBLEMS} more`]
    : problems;
}

function problem(field: string, expected: string, value: unknown): string {
  return `${field}: expected ${expected}; the record holds ${describeValue(value)}`;
}

/** A short, typed description of a stored value (quoted, and cut at 80 characters). */
function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (typeof value === 'number') return `the number ${value}`;
  if (typeof value === 'string') return `the string ${quote(value)}`;
  if (Array.isArray(value)) return `a list of ${value.length}`;
  if (typeof value === 'object') {
    let text: string;
    try {
      text = JSON.stringify(value);
    } catch {
      text = '{…}';
    }
    return `an object ${quote(text)}`;
  }
  return `a ${typeof value}`;
}

function quote(text: string): string {
  return JSON.stringify(text.length > 80 ? `${text.slice(0, 80)}…` : text);
}
