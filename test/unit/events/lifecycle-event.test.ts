import type { PutEventsRequestEntry } from '@aws-sdk/client-eventbridge';
import { describe, expect, it } from 'vitest';
import { AuditEvent, TaskStatus } from '../../../src/core/constants.js';
import { ValidationError } from '../../../src/core/errors.js';
import { LifecycleEventType, MAX_EVENT_RESULT_BYTES } from '../../../src/events/lifecycle-event.js';
import { chunkEntries, eventPublisher } from '../../../src/events/publisher.js';
import { failedEvent, terminalEvent } from '../../../src/events/record-events.js';
import { eventRetrySeconds, resolveEventSettings } from '../../../src/events/worker-config.js';
import { silentLogger } from '../../../src/observability/logger.js';
import { FIXTURE_NOW, taskRecord } from '../../helpers/task-record.js';

const claimed = (attempt: number, at: number) => ({
  event: AuditEvent.CLAIMED,
  at,
  attempt,
  status: TaskStatus.RUNNING,
});

describe('terminalEvent', () => {
  it('describes a SUCCEEDED task with its timing, ordering key and result', () => {
    const record = taskRecord({
      status: TaskStatus.SUCCEEDED,
      attempt: 2,
      orderingKey: 'customer-7',
      result: { sent: true },
      finishedAt: FIXTURE_NOW,
      history: [claimed(1, FIXTURE_NOW - 9_000), claimed(2, FIXTURE_NOW - 1_500)],
    });

    const event = terminalEvent(record);

    expect(event?.detailType).toBe(LifecycleEventType.SUCCEEDED);
    expect(event?.detail).toEqual({
      taskId: 'task-1',
      type: 'email.send',
      status: TaskStatus.SUCCEEDED,
      attempt: 2,
      maxAttempts: 3,
      orderingKey: 'customer-7',
      enqueuedAt: new Date(FIXTURE_NOW - 60_000).toISOString(),
      startedAt: new Date(FIXTURE_NOW - 1_500).toISOString(),
      finishedAt: new Date(FIXTURE_NOW).toISOString(),
      durationMs: 1_500,
      error: null,
      deadReason: null,
      result: { sent: true },
      resultTruncated: false,
    });
  });

  it('leaves out a result over the limit and flags it', () => {
    const record = taskRecord({
      status: TaskStatus.SUCCEEDED,
      attempt: 1,
      result: 'x'.repeat(MAX_EVENT_RESULT_BYTES),
      finishedAt: FIXTURE_NOW,
    });

    const event = terminalEvent(record);

    expect(event?.detail).toMatchObject({ result: null, resultTruncated: true });
  });

  it('carries the error and the reason of a DEAD task', () => {
    const record = taskRecord({
      status: TaskStatus.DEAD,
      attempt: 3,
      lastError: { name: 'Error', message: 'boom' },
      deadReason: 'failed 3 of 3 attempts',
      finishedAt: FIXTURE_NOW,
    });

    const event = terminalEvent(record);

    expect(event?.detailType).toBe(LifecycleEventType.DEAD);
    expect(event?.detail).toMatchObject({
      error: { name: 'Error', message: 'boom' },
      deadReason: 'failed 3 of 3 attempts',
      startedAt: null,
      durationMs: null,
    });
  });

  it('gives a CANCELLED task no start, even after an earlier attempt', () => {
    const record = taskRecord({
      status: TaskStatus.CANCELLED,
      attempt: 1,
      lastError: { name: 'Error', message: 'earlier' },
      finishedAt: FIXTURE_NOW,
      history: [claimed(1, FIXTURE_NOW - 5_000)],
    });

    const event = terminalEvent(record);

    expect(event?.detailType).toBe(LifecycleEventType.CANCELLED);
    expect(event?.detail).toMatchObject({ startedAt: null, durationMs: null, error: null });
  });

  it.each([
    TaskStatus.SCHEDULED,
    TaskStatus.PENDING,
    TaskStatus.QUEUED,
    TaskStatus.RUNNING,
    TaskStatus.ROLLED_BACK,
  ])('has no event for a %s record', (status) => {
    expect(terminalEvent(taskRecord({ status }))).toBeUndefined();
  });
});

describe('failedEvent', () => {
  it('describes the failed attempt of a task that will run again', () => {
    const record = taskRecord({
      status: TaskStatus.QUEUED,
      attempt: 1,
      lastError: { name: 'TypeError', message: 'nope' },
      updatedAt: FIXTURE_NOW,
      history: [claimed(1, FIXTURE_NOW - 200)],
    });

    const event = failedEvent(record);

    expect(event.detailType).toBe(LifecycleEventType.FAILED);
    expect(event.detail).toMatchObject({
      status: TaskStatus.QUEUED,
      attempt: 1,
      error: { name: 'TypeError', message: 'nope' },
      finishedAt: new Date(FIXTURE_NOW).toISOString(),
      durationMs: 200,
    });
  });
});

describe('chunkEntries', () => {
  const entry = (detailBytes: number): PutEventsRequestEntry => ({
    Source: 'tasklane.x',
    DetailType: LifecycleEventType.SUCCEEDED,
    Detail: 'x'.repeat(detailBytes),
    EventBusName: 'default',
  });

  it('puts at most 10 entries in a call', () => {
    const chunks = chunkEntries(Array.from({ length: 23 }, () => entry(10)));

    expect(chunks.map((c) => c.length)).toEqual([10, 10, 3]);
    expect(chunks.flat()).toEqual(Array.from({ length: 23 }, (_, i) => i));
  });

  it('starts a new call before 256 KB', () => {
    const chunks = chunkEntries(Array.from({ length: 4 }, () => entry(100 * 1024)));

    expect(chunks).toEqual([
      [0, 1],
      [2, 3],
    ]);
  });

  it('gives an entry too large on its own a call of its own', () => {
    const chunks = chunkEntries([entry(10), entry(300 * 1024), entry(10)]);

    expect(chunks).toEqual([[0], [1], [2]]);
  });
});

describe('resolveEventSettings', () => {
  it('is off without the option and without TASKLANE_EVENT_BUS', () => {
    expect(resolveEventSettings(undefined, 'orders', {})).toBeUndefined();
  });

  it('is on when the construct set TASKLANE_EVENT_BUS, unless turned off', () => {
    const env = { TASKLANE_EVENT_BUS: 'orders-bus', TASKLANE_EVENT_SOURCE: 'tasklane.orders' };

    expect(resolveEventSettings(undefined, 'orders', env)).toEqual({
      client: undefined,
      eventBus: 'orders-bus',
      source: 'tasklane.orders',
    });
    expect(resolveEventSettings(false, 'orders', env)).toBeUndefined();
  });

  it("names the executor in the source and the account's default bus when none is given", () => {
    expect(resolveEventSettings(true, 'orders', {})).toMatchObject({
      eventBus: 'default',
      source: 'tasklane.orders',
    });
  });

  it("keeps the app's own publisher, which eventPublisher then gives back", () => {
    const publisher = { publish: async () => [] };

    const settings = resolveEventSettings({ publisher }, 'orders', {});

    expect(settings).toEqual({ publisher });
    expect(settings && eventPublisher(settings, silentLogger)).toBe(publisher);
  });

  it('refuses a source outside the tasklane. namespace, saying what it expected', () => {
    const act = () => resolveEventSettings({ source: 'aws.orders' }, 'orders', {});

    expect(act).toThrow(ValidationError);
    expect(act).toThrow(/events\.source: expected 'tasklane\.' .* received 'aws\.orders'/);
  });
});

describe('eventRetrySeconds', () => {
  it('doubles from 10 s with each receive, up to 5 minutes', () => {
    const holds = [1, 2, 3, 4, 5, 6, 7, 50].map(eventRetrySeconds);

    expect(holds).toEqual([10, 20, 40, 80, 160, 300, 300, 300]);
  });
});
