/**
 * The `debounce` enqueue option and its validation (docs/debounce.md). Checked with the
 * other options, so one ValidationError lists every problem at once.
 */

import { DebounceMode } from '../core/constants.js';
import type { DebounceSpec } from '../core/debounce.js';
import type { ValidationIssue } from '../core/errors.js';
import { checkOptionKeys } from './validate.js';

/** Longest debounce window: a held-back message must stay far under SQS's 12-hour cap. */
export const MAX_DEBOUNCE_WINDOW_MS = 3_600_000;

/** Options of a debounced enqueue (see `EnqueueOptions.debounce`). */
export interface DebounceOptions {
  /**
   * Enqueues of the same task type with the same key fold into one waiting task. Keys are
   * scoped per task type. 1-128 printable ASCII characters, no spaces.
   */
  readonly key: string;
  /** The window, in milliseconds: 1 to 3600000 (1 hour). */
  readonly windowMs: number;
  /**
   * `'last'`: each enqueue replaces the waiting task's payload and moves its start to
   * `windowMs` after this enqueue. `'first'`: the first enqueue's payload runs `windowMs`
   * after it, and the enqueues until it starts are dropped (a throttle).
   */
  readonly mode: 'last' | 'first';
}

const KEY_PATTERN = /^[\x21-\x7e]{1,128}$/;
const MODES: readonly string[] = Object.values(DebounceMode);

function received(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.slice(0, 80));
  return `${typeof value} ${JSON.stringify(value) ?? ''}`.trim();
}

/**
 * Checks `options.debounce` and its conflicts with the other options, adding an issue for
 * each problem. @returns the spec when it is valid, else undefined.
 */
export function checkDebounce(
  issues: ValidationIssue[],
  options: { readonly debounce?: unknown; readonly [key: string]: unknown },
): DebounceSpec | undefined {
  const given = options.debounce;
  if (given === undefined) return undefined;
  const before = issues.length;
  for (const other of ['id', 'runAt', 'delay'] as const) {
    if (options[other] !== undefined) {
      issues.push({
        path: `options.${other}`,
        message: `expected no ${other} with debounce (the debounce key picks the task and its window its start)`,
      });
    }
  }
  if (options.dependsOn !== undefined) {
    issues.push({
      path: 'options.dependsOn',
      message:
        'expected no dependsOn with debounce (a debounced task starts when its window ends, a dependent one when its parents finish)',
    });
  }
  if (typeof given !== 'object' || given === null || Array.isArray(given)) {
    issues.push({
      path: 'options.debounce',
      message: `expected { key, windowMs, mode }, received ${received(given)}`,
    });
    return undefined;
  }
  checkOptionKeys(issues, given, ['key', 'windowMs', 'mode'], 'options.debounce');
  const { key, windowMs, mode } = given as Record<string, unknown>;
  if (typeof key !== 'string' || !KEY_PATTERN.test(key)) {
    issues.push({
      path: 'options.debounce.key',
      message: `expected 1-128 printable ASCII characters without spaces, received ${received(key)}`,
    });
  }
  if (
    typeof windowMs !== 'number' ||
    !Number.isSafeInteger(windowMs) ||
    windowMs <= 0 ||
    windowMs > MAX_DEBOUNCE_WINDOW_MS
  ) {
    issues.push({
      path: 'options.debounce.windowMs',
      message: `expected a whole number of milliseconds from 1 to ${MAX_DEBOUNCE_WINDOW_MS}, received ${received(windowMs)}`,
    });
  }
  if (typeof mode !== 'string' || !MODES.includes(mode)) {
    issues.push({
      path: 'options.debounce.mode',
      message: `expected 'last' or 'first', received ${received(mode)}`,
    });
  }
  if (issues.length > before) return undefined;
  return { key: key as string, windowMs: windowMs as number, mode: mode as DebounceSpec['mode'] };
}
