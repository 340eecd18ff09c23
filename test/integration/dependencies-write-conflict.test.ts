/**
 * A parent's terminal write refused with TransactionConflictException: DynamoDB's answer to a
 * plain write on an item that a producer's TransactWriteItems (registering a dependent) holds
 * at that moment. moto does not model it, so the worker's client is given one.
 */
import { TransactionConflictException } from '@aws-sdk/client-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { AuditEvent, TaskStatus } from '../../src/core/constants.js';
import { testClients } from '../helpers/aws.js';
import { dependencyTasks, newRuns } from '../helpers/dependencies.js';
import { setupExecutor, type TestExecutor } from '../helpers/executor.js';

let executor: TestExecutor;

beforeAll(async () => {
  executor = await setupExecutor();
});

/** A DynamoDB client whose first UpdateItem on `taskId` after its claim is refused as a conflict. */
function conflictingOnce(taskId: string) {
  const client = testClients().dynamodb;
  let updates = 0;
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const key = (args.input as { Key?: { pk?: unknown } }).Key?.pk;
      const pk = typeof key === 'string' ? key : (key as { S?: string } | undefined)?.S;
      if (context.commandName === 'UpdateItemCommand' && pk === taskId && ++updates === 2) {
        throw new TransactionConflictException({
          message: 'Transaction is ongoing for the item (injected)',
          $metadata: {},
        });
      }
      return next(args);
    },
    { step: 'initialize', name: 'conflict-once' },
  );
  return client;
}

describe('Worker: a terminal write refused with TransactionConflictException', () => {
  it('writes the outcome once, runs the task once and releases its dependent', async () => {
    const runs = newRuns();
    const { step, all } = dependencyTasks(runs);
    const client = executor.client();
    await client.enqueue(step, { name: 'parent' }, { id: 'conflict-parent' });
    await client.enqueue(
      step,
      { name: 'child' },
      { id: 'conflict-child', dependsOn: ['conflict-parent'] },
    );
    const worker = executor.worker(all, { dynamodb: conflictingOnce('conflict-parent') });

    for (let i = 0; i < 3; i++) await executor.drain(worker);

    const parent = await executor.store.get('conflict-parent');
    const child = await executor.store.get('conflict-child');
    expect(parent?.status).toBe(TaskStatus.SUCCEEDED);
    expect(runs.order.filter((name) => name === 'parent')).toHaveLength(1);
    expect(parent?.history.filter((h) => h.event === AuditEvent.SUCCEEDED)).toHaveLength(1);
    expect(child?.status).toBe(TaskStatus.SUCCEEDED);
  });
});
