/**
 * Small decisions of a run, kept pure: when coalesced progress is written, and what the
 * history says about a task ended CANCELLED while it ran (ADR 0022).
 */
import type { HandlerOutcome } from './run-handler.js';

/**
 * How long the latest progress waits for a write of its own, so that at most one write
 * carries progress per progress interval: none when the last one is an interval old (or
 * there was none: a run's first report is written at once), else until it is.
 */
export function progressFlushDelay(
  now: number,
  lastProgressAt: number,
  intervalMs: number,
): number {
  return Math.max(0, lastProgressAt + intervalMs - now);
}

/** The detail of the CANCELLED entry, from how the handler ended after the request. */
export function cancelledDetail(outcome: HandlerOutcome): string {
  if (outcome.ok) {
    return 'cancelled while running: the handler returned after the request; its result is not stored';
  }
  if (outcome.timedOut) {
    return 'cancelled while running: the handler ignored the request and was cut off at its timeout';
  }
  const error = outcome.error;
  const what = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return `cancelled while running: the handler stopped (${what})`;
}

/** The detail of the PAUSED entry, from how the handler ended after the pause request. */
export function pausedDetail(outcome: HandlerOutcome): string {
  if (outcome.ok) return 'paused as asked: the run continued after the request';
  if (outcome.timedOut) return 'paused as asked: the handler ignored the request until its timeout';
  const error = outcome.error;
  const what = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return `paused as asked: the handler stopped (${what})`;
}
