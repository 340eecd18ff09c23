import { describe, expect, it } from 'vitest';
import {
  fallbackSeconds,
  HOLD_MARGIN_SECONDS,
  isVisibilityLimitRefusal,
  RECEIVE_BUDGET_SECONDS,
  recordTiming,
  secondsLeft,
  withinBudget,
} from '../../../src/worker/hold-budget.js';

const HOUR_MS = 3_600_000;
const T0 = 1_800_000_000_000;
/** The longest a hold asked at its receive may be. */
const FULL = RECEIVE_BUDGET_SECONDS - HOLD_MARGIN_SECONDS;

describe('secondsLeft', () => {
  it('is 12 hours less the 60 s margin at the receive itself', () => {
    expect(secondsLeft(T0, T0)).toBe(43_140);
  });

  it('shrinks as time passes since the receive, never below 0', () => {
    expect(secondsLeft(T0, T0 + HOUR_MS)).toBe(FULL - 3_600);
    expect(secondsLeft(T0, T0 + 12 * HOUR_MS)).toBe(0);
    expect(secondsLeft(T0, T0 + 13 * HOUR_MS)).toBe(0);
  });

  it('rounds down, so the ask never reaches past the budget', () => {
    expect(secondsLeft(T0, T0 + 500)).toBe(FULL - 1);
  });
});

describe('withinBudget', () => {
  it('cuts a 12-hour hold to what is left of its receive budget', () => {
    const timing = { receivedAt: T0 };

    expect(withinBudget(43_200, timing, T0)).toBe(FULL);
    expect(withinBudget(43_200, timing, T0 + 2 * HOUR_MS)).toBe(FULL - 7_200);
  });

  it('leaves a hold that fits the budget as it is', () => {
    expect(withinBudget(600, { receivedAt: T0 }, T0 + HOUR_MS)).toBe(600);
  });

  it('never raises a zero visibility, and cuts a positive one to at least 1 s', () => {
    expect(withinBudget(0, { receivedAt: T0 }, T0)).toBe(0);
    expect(withinBudget(600, { receivedAt: T0 }, T0 + 12 * HOUR_MS)).toBe(1);
  });

  it('leaves a change alone when its receive time is unknown', () => {
    expect(withinBudget(43_200, undefined, T0)).toBe(43_200);
  });
});

describe('fallbackSeconds', () => {
  it('asks for what a count from the send allows when that is shorter', () => {
    const timing = { receivedAt: T0, sentAt: T0 - HOUR_MS };

    expect(fallbackSeconds(FULL, timing, T0)).toBe(FULL - 3_600);
  });

  it('falls back to 1 s without a send time, or when the send allows nothing shorter', () => {
    expect(fallbackSeconds(FULL, { receivedAt: T0 }, T0)).toBe(1);
    expect(fallbackSeconds(600, { receivedAt: T0, sentAt: T0 }, T0)).toBe(1);
    expect(fallbackSeconds(FULL, { receivedAt: T0, sentAt: T0 - 13 * HOUR_MS }, T0)).toBe(1);
    expect(fallbackSeconds(FULL, undefined, T0)).toBe(1);
  });
});

describe('isVisibilityLimitRefusal', () => {
  it("recognizes SQS's and moto's refusals of a visibility past the limit", () => {
    const aws =
      'Value 43200 for parameter VisibilityTimeout is invalid. Reason: Total VisibilityTimeout for the message is beyond the limit [43200 seconds]';

    expect(isVisibilityLimitRefusal('InvalidParameterValue', aws)).toBe(true);
    expect(isVisibilityLimitRefusal('AWS.SimpleQueueService.InvalidParameterValue', aws)).toBe(
      true,
    );
    expect(isVisibilityLimitRefusal('InvalidParameterValue', 'Visibility timeout invalid')).toBe(
      true,
    );
  });

  it('does not take other failures for a refusal', () => {
    expect(isVisibilityLimitRefusal('ReceiptHandleIsInvalid', 'VisibilityTimeout')).toBe(false);
    expect(isVisibilityLimitRefusal('InvalidParameterValue', 'MaxNumberOfMessages')).toBe(false);
    expect(isVisibilityLimitRefusal(undefined, undefined)).toBe(false);
  });
});

describe('recordTiming', () => {
  it("takes the send time from a record's SentTimestamp, when it has a valid one", () => {
    expect(recordTiming({ attributes: { SentTimestamp: String(T0) } }, T0 + 5)).toEqual({
      receivedAt: T0 + 5,
      sentAt: T0,
    });
    expect(recordTiming({ attributes: { SentTimestamp: '' } }, T0).sentAt).toBeUndefined();
    expect(recordTiming({}, T0).sentAt).toBeUndefined();
  });
});
