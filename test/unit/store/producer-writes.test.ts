/**
 * The producer's UpdateItem grant (`dynamodb:Attributes`) against the updates the store
 * really builds: each producer-side write is sent to a client that answers offline, and the
 * attributes its request names are read from the request itself, so a new attribute in any
 * of those writes fails here before it is refused by IAM in an account.
 */
import { ConditionalCheckFailedException, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { describe, expect, it } from 'vitest';
import { AuditEvent, TaskStatus } from '../../../src/core/constants.js';
import type { HistoryEntry } from '../../../src/core/record.js';
import { silentLogger } from '../../../src/observability/logger.js';
import { DebounceStore } from '../../../src/store/debounce.js';
import { DependencyStore } from '../../../src/store/dependency-store.js';
import { PRODUCER_HISTORY } from '../../../src/store/history.js';
import {
  DEBOUNCED_UPDATE_ATTRIBUTES,
  PRODUCER_UPDATE_ATTRIBUTES,
  SIGNAL_ITEM_PREFIX,
} from '../../../src/store/producer-writes.js';
import { RecordWrites } from '../../../src/store/record-writes.js';
import { RepairWrites } from '../../../src/store/repair-writes.js';
import { signalWrites } from '../../../src/store/signal-writes.js';
import type { SignalSeen } from '../../../src/store/signals.js';
import { writeContext } from '../../../src/store/store-context.js';
import { TaskStore } from '../../../src/store/task-store.js';
import { FIXTURE_NOW, taskRecord } from '../../helpers/task-record.js';

interface SentRequest {
  readonly command: string;
  readonly input: {
    readonly Key?: Record<string, unknown>;
    readonly UpdateExpression?: string;
    readonly ConditionExpression?: string;
    readonly ExpressionAttributeNames?: Record<string, string>;
  };
}

/** Words of DynamoDB's expression grammar that are not attribute names. */
const GRAMMAR = new Set([
  'SET',
  'REMOVE',
  'ADD',
  'DELETE',
  'AND',
  'OR',
  'NOT',
  'IN',
  'BETWEEN',
  'if_not_exists',
  'list_append',
  'attribute_exists',
  'attribute_not_exists',
  'attribute_type',
  'begins_with',
  'contains',
  'size',
]);

/** A store whose client never reaches the network; `sent` holds every request. */
function offlineStore(): { store: TaskStore; sent: SentRequest[] } {
  const sent: SentRequest[] = [];
  const dynamodb = new DynamoDBClient({
    region: 'us-east-1',
    credentials: { accessKeyId: 'offline', secretAccessKey: 'offline' },
  });
  dynamodb.middlewareStack.add(
    (_next, context) => async (args) => {
      sent.push({ command: context.commandName ?? '', input: args.input as SentRequest['input'] });
      return { output: { $metadata: {} }, response: {} };
    },
    { step: 'initialize', name: 'answerOffline' },
  );
  const store = new TaskStore({
    tableName: 'tasks',
    dynamodb,
    logger: silentLogger,
    clock: () => FIXTURE_NOW,
  });
  return { store, sent };
}

/**
 * Every top-level attribute a request names: its key, its expression attribute names, and
 * any name written bare in an expression.
 */
function attributesNamed(input: SentRequest['input']): string[] {
  const names = new Set([
    ...Object.keys(input.Key ?? {}),
    ...Object.values(input.ExpressionAttributeNames ?? {}),
  ]);
  for (const expression of [input.UpdateExpression, input.ConditionExpression]) {
    const bare = (expression ?? '').replace(/[#:]\w+/g, ' ').match(/[A-Za-z_]\w*/g) ?? [];
    for (const word of bare) if (!GRAMMAR.has(word)) names.add(word);
  }
  return [...names];
}

/** A history too large to append to, so the write rewrites it folded. */
function longHistory(): HistoryEntry[] {
  return Array.from({ length: 200 }, (_, i) => ({
    event: AuditEvent.SENT,
    at: FIXTURE_NOW + i,
    attempt: 0,
    status: TaskStatus.QUEUED,
    detail: 'x'.repeat(200),
  }));
}

const entry: HistoryEntry = {
  event: AuditEvent.SCHEDULED,
  at: FIXTURE_NOW,
  attempt: 0,
  status: TaskStatus.SCHEDULED,
};
const scheduled = taskRecord({ status: TaskStatus.SCHEDULED, history: [entry] });

/** The producer-side updates, as TaskClient's enqueue, rollback, confirmation and cancel call them. */
const producerWrites: [string, (store: TaskStore) => Promise<unknown>, string][] = [
  [
    'confirmSchedule',
    (store) => store.feature(RecordWrites).confirmSchedule(scheduled),
    'scheduleConfirmed',
  ],
  [
    'discard (the rollback)',
    (store) => store.feature(RepairWrites).discard(scheduled, 'not created'),
    'expiresAt',
  ],
  [
    'discard, over the history budget',
    (store) =>
      store.feature(RepairWrites).discard({ ...scheduled, history: longHistory() }, 'not created'),
    PRODUCER_HISTORY,
  ],
  [
    'cancel',
    (store) => store.feature(RepairWrites).cancel(scheduled, 'no longer needed'),
    'finishedAt',
  ],
  [
    'cancel, over the history budget',
    (store) =>
      store
        .feature(RepairWrites)
        .cancel({ ...scheduled, history: longHistory() }, 'no longer needed'),
    PRODUCER_HISTORY,
  ],
  [
    'requestCancel (a running task)',
    (store) =>
      store.feature(RecordWrites).requestCancel(taskRecord({ status: TaskStatus.RUNNING }), 'stop'),
    'cancelRequestedAt',
  ],
];

describe('PRODUCER_UPDATE_ATTRIBUTES', () => {
  it.each(producerWrites)('covers every attribute %s names', async (_name, write, among) => {
    // Arrange
    const { store, sent } = offlineStore();

    // Act
    await write(store).catch(() => undefined);

    // Assert
    const updates = sent.filter((request) => request.command === 'UpdateItemCommand');
    expect(updates).toHaveLength(1);
    const named = attributesNamed(updates[0]?.input ?? {});
    expect(named).toContain(among);
    expect(named.filter((a) => !PRODUCER_UPDATE_ATTRIBUTES.includes(a))).toEqual([]);
  });

  it('covers every attribute an enqueue with dependsOn names on its parents', async () => {
    // Arrange
    const { store, sent } = offlineStore();
    const child = {
      id: 'child',
      type: 'ping',
      payloadJson: '{}',
      payloadHash: 'h',
      maxAttempts: 3,
      timeoutMs: 1000,
      messageGroupId: 'child',
      parents: ['p1', 'p2'],
    };

    // Act
    await store
      .feature(DependencyStore)
      .create(child)
      .catch(() => undefined);

    // Assert
    const [transaction] = sent.filter((r) => r.command === 'TransactWriteItemsCommand');
    const input = (transaction?.input ?? {}) as {
      TransactItems?: { Update?: SentRequest['input'] }[];
    };
    const items = input.TransactItems;
    const updates = (items ?? []).flatMap((item) =>
      item.Update === undefined ? [] : [item.Update],
    );
    expect(updates).toHaveLength(2);
    const named = updates.flatMap((update) => attributesNamed(update));
    expect(named).toContain('dependents');
    expect(named.filter((a) => !PRODUCER_UPDATE_ATTRIBUTES.includes(a))).toEqual([]);
  });

  it('leaves out the history that workers, the sweeper and operators write', () => {
    // Arrange
    const recorded = ['history', 'historyTruncated'];

    // Act
    const granted = recorded.filter((a) => PRODUCER_UPDATE_ATTRIBUTES.includes(a));

    // Assert
    expect(granted).toEqual([]);
  });

  it('leaves out what decides what a task does', () => {
    // Arrange
    const decisive = [
      'type',
      'payload',
      'payloadHash',
      'maxAttempts',
      'timeoutMs',
      'runAt',
      'messageGroupId',
      'leaseToken',
      'leaseExpiresAt',
      'workerId',
      'result',
      'lastError',
      'deadReason',
    ];

    // Act
    const granted = decisive.filter((a) => PRODUCER_UPDATE_ATTRIBUTES.includes(a));

    // Assert
    expect(granted).toEqual([]);
  });
});

/**
 * A debounce store on the offline client of {@link offlineStore}; with `refuseFirst`, its
 * first write is refused with that item as the current record.
 */
function offlineDebounces(refuseFirst?: Record<string, unknown>): {
  debounces: DebounceStore;
  sent: SentRequest[];
} {
  const sent: SentRequest[] = [];
  const dynamodb = new DynamoDBClient({
    region: 'us-east-1',
    credentials: { accessKeyId: 'offline', secretAccessKey: 'offline' },
  });
  dynamodb.middlewareStack.add(
    (_next, context) => async (args) => {
      sent.push({ command: context.commandName ?? '', input: args.input as SentRequest['input'] });
      if (refuseFirst !== undefined && sent.length === 1) {
        throw new ConditionalCheckFailedException({
          message: 'The conditional request failed',
          $metadata: {},
          Item: marshall(refuseFirst),
        });
      }
      return { output: { $metadata: {}, Attributes: { pk: 'x' } }, response: {} };
    },
    { step: 'initialize', name: 'answerOffline' },
  );
  const ctx = writeContext(
    { tableName: 'tasks', dynamodb, logger: silentLogger },
    8,
    86_400_000,
    () => FIXTURE_NOW,
  );
  return { debounces: new DebounceStore(ctx), sent };
}

const spec = { key: 'doc-1', windowMs: 1000, mode: 'last' } as const;
const replacement = {
  payloadJson: '{"n":2}',
  payloadHash: 'h',
  integrityTag: 'tag',
  runAt: FIXTURE_NOW + 1000,
  maxAttempts: 3,
  timeoutMs: 30_000,
  lane: 'bulk',
  orderingKey: 'doc-1',
};

describe('DEBOUNCED_UPDATE_ATTRIBUTES', () => {
  it.each([
    ['absorb, first', (d: DebounceStore) => d.absorb('debounce-x-1', spec, undefined)],
    ['absorb, last', (d: DebounceStore) => d.absorb('debounce-x-1', spec, replacement)],
  ])('covers every attribute %s names', async (_name, write) => {
    // Arrange
    const { debounces, sent } = offlineDebounces();

    // Act
    await write(debounces);

    // Assert
    const named = attributesNamed(sent[0]?.input ?? {});
    expect(named).toContain('absorbed');
    expect(named.filter((a) => !DEBOUNCED_UPDATE_ATTRIBUTES.includes(a))).toEqual([]);
  });

  it('covers every attribute a fold keeping a later stored runAt names', async () => {
    // Arrange: a waiting task whose window a producer with a faster clock moved further.
    const { debounces, sent } = offlineDebounces({
      pk: 'debounce-x-1',
      type: 'save',
      status: TaskStatus.PENDING,
      attempt: 0,
      createdAt: FIXTURE_NOW,
      runAt: replacement.runAt + 5000,
      orderingKey: 'doc-1',
      debounceKey: 'doc-1',
      debounceMode: 'last',
    });

    // Act
    await debounces.absorb('debounce-x-1', spec, replacement);

    // Assert
    const kept = sent[1]?.input ?? {};
    expect(sent).toHaveLength(2);
    expect(kept.UpdateExpression).not.toMatch(/#runAt =|#statusAt =/);
    expect(attributesNamed(kept).filter((a) => !DEBOUNCED_UPDATE_ATTRIBUTES.includes(a))).toEqual(
      [],
    );
  });

  it('keeps the pointer update within PRODUCER_UPDATE_ATTRIBUTES', async () => {
    // Arrange
    const { debounces, sent } = offlineDebounces();

    // Act
    await debounces.advance('save', 'doc-1', 2, 1000);

    // Assert
    const named = attributesNamed(sent[0]?.input ?? {});
    expect(named).toContain('generation');
    expect(named.filter((a) => !PRODUCER_UPDATE_ATTRIBUTES.includes(a))).toEqual([]);
  });

  it('still leaves out the type, the message group, the lease and the result', () => {
    // Arrange
    const decisive = ['type', 'messageGroupId', 'leaseToken', 'result', 'resultRef'];

    // Act
    const granted = decisive.filter((a) => DEBOUNCED_UPDATE_ATTRIBUTES.includes(a));

    // Assert
    expect(granted).toEqual([]);
  });
});

describe('the signal sender’s writes (grantSignal)', () => {
  const cases: [string, SignalSeen][] = [
    ['to a running task', taskRecord({ status: TaskStatus.RUNNING })],
    [
      'to a task waiting for it (the wake)',
      taskRecord({
        status: TaskStatus.SUSPENDED,
        wait: { kind: 'signal', step: 0, name: 'approve', epoch: 0 },
      }),
    ],
    [
      'to a sleeping task',
      taskRecord({
        status: TaskStatus.SUSPENDED,
        wait: { kind: 'sleep', step: 0, name: 'nap', epoch: 0, until: FIXTURE_NOW + 1 },
      }),
    ],
  ];

  it.each(cases)('write only signal items and check the task, %s', async (_, seen) => {
    // Arrange
    const { store, sent } = offlineStore();

    // Act
    await signalWrites(store).send(seen, undefined, {
      name: 'approve',
      dataJson: '{"ok":true}',
      signalId: 's-1',
    });

    // Assert
    const [transaction] = sent.filter((r) => r.command === 'TransactWriteItemsCommand');
    const items =
      (
        (transaction?.input ?? {}) as {
          TransactItems?: {
            Update?: SentRequest['input'];
            Put?: { Item?: Record<string, unknown> };
            ConditionCheck?: { Key?: Record<string, unknown> };
          }[];
        }
      ).TransactItems ?? [];
    const updates = items.flatMap((item) => (item.Update === undefined ? [] : [item.Update]));
    const puts = items.flatMap((item) => (item.Put === undefined ? [] : [item.Put]));
    const checks = items.flatMap((item) =>
      item.ConditionCheck === undefined ? [] : [item.ConditionCheck],
    );
    const keyOf = (key: unknown) =>
      typeof key === 'string' ? key : (key as { S?: string } | undefined)?.S;
    // The task is checked, never written (ADR 0066): its state is only tested.
    expect(checks.map((check) => keyOf(check.Key?.pk))).toEqual([seen.id]);
    expect(updates).toHaveLength(1);
    expect(keyOf((updates[0] as { Key?: Record<string, unknown> }).Key?.pk)).toBe(
      `${SIGNAL_ITEM_PREFIX}${seen.id} head`,
    );
    expect(attributesNamed(updates[0] ?? {})).toContain('count');
    expect(puts).toHaveLength(2);
    for (const put of puts) {
      const key = put.Item?.pk as string | { S?: string } | undefined;
      expect(typeof key === 'string' ? key : key?.S).toMatch(new RegExp(`^${SIGNAL_ITEM_PREFIX}`));
    }
  });
});
