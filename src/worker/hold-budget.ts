/**
 * The receive budget of a hold (docs/adr/0067-holds-within-the-receive-budget.md). SQS lets a
 * message's visibility end at most 12 hours after the receive that gave its receipt handle;
 * a ChangeMessageVisibility asking past that is refused (InvalidParameterValue), not trimmed.
 * So every change of a message in hand is cut to what is left of its receive's 12 hours, less
 * a margin: for Lambda the worker only knows its batch's start, and the event source mapping
 * received the messages shortly before the invocation.
 *
 * A change refused all the same (an engine that counts the 12 hours from the send, as moto
 * does, or a receive earlier than the worker thought) falls back to what a count from the
 * send allows, then to one second. A cut hold only returns the message earlier: it is
 * received again and held again, with a fresh budget.
 */
import { Defaults } from '../core/constants.js';

/** How long after a receive (or, on moto, the send) a message's visibility may end. */
export const RECEIVE_BUDGET_SECONDS = Defaults.MAX_VISIBILITY_TIMEOUT_SECONDS;

/**
 * Kept back from the budget: the time between the receive and the moment the worker noted
 * it (a Lambda invocation's start), and the clocks' small disagreement.
 */
export const HOLD_MARGIN_SECONDS = 60;

/** The shortest hold a fallback gives: the message comes back at once, without spinning. */
export const FALLBACK_SECONDS = 1;

/** When a message in hand was received, and when it was first sent, in ms since the epoch. */
export interface ReceiveTiming {
  readonly receivedAt: number;
  /** SQS's SentTimestamp, when the receive asked for it. */
  readonly sentAt?: number | undefined;
}

/** When a message was first sent, from SQS's attribute, if it gave one. */
export function sentAt(message: {
  readonly attributes?: { readonly SentTimestamp?: string } | undefined;
}): number | undefined {
  const sent = Number(message.attributes?.SentTimestamp);
  return Number.isFinite(sent) && sent > 0 ? sent : undefined;
}

/** Whole seconds left of the 12 hours counted from `from`, less the margin, at `now`. */
export function secondsLeft(from: number, now: number): number {
  const endsAt = from + (RECEIVE_BUDGET_SECONDS - HOLD_MARGIN_SECONDS) * 1000;
  return Math.max(0, Math.floor((endsAt - now) / 1000));
}

/**
 * `seconds` cut to the receive's budget. A visibility of 0 (show at once) is never raised; a
 * positive one is cut to at least one second, so a hold never spins.
 */
export function withinBudget(
  seconds: number,
  timing: ReceiveTiming | undefined,
  now: number,
): number {
  if (timing === undefined || seconds <= 0) return seconds;
  return Math.min(seconds, Math.max(FALLBACK_SECONDS, secondsLeft(timing.receivedAt, now)));
}

/**
 * The visibility to ask for after a refusal of `asked` seconds: what a count from the send
 * allows, when that is shorter; otherwise one second (the message simply comes back).
 */
export function fallbackSeconds(
  asked: number,
  timing: ReceiveTiming | undefined,
  now: number,
): number {
  const sentAt = timing?.sentAt;
  if (sentAt !== undefined) {
    const fromSend = secondsLeft(sentAt, now);
    if (fromSend >= FALLBACK_SECONDS && fromSend < asked) return fromSend;
  }
  return FALLBACK_SECONDS;
}

/**
 * Whether an error (or a batch entry's failure) is SQS refusing a visibility past the 12-hour
 * limit: InvalidParameterValue naming the visibility timeout ("Total VisibilityTimeout for
 * the message is beyond the limit [43200 seconds]"; moto's batch check says "Visibility
 * timeout invalid").
 */
export function isVisibilityLimitRefusal(code: string | undefined, message: string | undefined) {
  if (code === undefined || !code.includes('InvalidParameterValue')) return false;
  return /visibility ?timeout/i.test(message ?? '');
}

/** The receive timing of an SQS record received at `receivedAt`. */
export function recordTiming(
  record: { readonly attributes?: { readonly SentTimestamp?: string } | undefined },
  receivedAt: number,
): ReceiveTiming {
  const sent = Number(record.attributes?.SentTimestamp);
  return { receivedAt, sentAt: Number.isFinite(sent) && sent > 0 ? sent : undefined };
}
