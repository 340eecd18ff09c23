/** The `debounce` enqueue option as the store keeps it (docs/adr/0029-debounce.md). */
import type { DebounceMode } from './constants.js';

/** A validated `debounce` enqueue option. */
export interface DebounceSpec {
  readonly key: string;
  readonly windowMs: number;
  readonly mode: DebounceMode;
}

/**
 * A 'last' task absorbs enqueues for at most this many windows after it was created; a later
 * enqueue starts a new task, so a key that never falls quiet still runs once in a while and
 * a waiting task's message is held back a bounded number of times.
 */
export const MAX_WAIT_WINDOWS = 10;

/**
 * Debounced tasks' ids start with this, and explicit ids may not: the producer's grant lets
 * it replace a waiting task's payload in place only under this prefix (ADR 0029).
 */
export const DEBOUNCE_ID_PREFIX = 'debounce-';

/** The debounce pointers' keys start with this (a space: no task id can). */
export const DEBOUNCE_POINTER_PREFIX = 'debounce ';
