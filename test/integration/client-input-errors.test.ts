import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { beforeEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { TaskClient } from '../../src/client/task-client.js';
import { TaskStatus } from '../../src/core/constants.js';
import { ValidationError } from '../../src/core/errors.js';
import { defineTask } from '../../src/tasks/task-definition.js';
import { setupExecutor, type TestExecutor } from '../helpers/executor.js';

const ping = defineTask('ping', { schema: z.object({ n: z.number() }), handler: () => undefined });

/** Ids no task can have: empty, with a space, one character too long, not a string. */
const IMPOSSIBLE_IDS: readonly [string, unknown][] = [
  ['empty', ''],
  ['a space', 'a b'],
  ['129 characters', 'x'.repeat(129)],
  ['a number', 7],
];

let executor: TestExecutor;
let client: TaskClient;
let dynamodbCalls: string[];

beforeEach(async () => {
  executor = await setupExecutor();
  dynamodbCalls = [];
  const dynamodb = new DynamoDBClient({ region: 'us-east-1' });
  dynamodb.middlewareStack.add(
    (next, context) => (args) => {
      dynamodbCalls.push(context.commandName ?? '');
      return next(args);
    },
    { step: 'initialize', name: 'count-calls' },
  );
  client = executor.client({ dynamodb });
});

/** What a call threw or rejected with (undefined when it succeeded). */
async function failureOf(call: () => unknown): Promise<unknown> {
  try {
    const result = call();
    if (result !== null && typeof result === 'object' && Symbol.asyncIterator in result) {
      await (result as AsyncGenerator).next();
    } else {
      await result;
    }
    return undefined;
  } catch (err) {
    return err;
  }
}

describe('TaskClient methods that take task ids', () => {
  const calls: [string, (id: unknown) => unknown, string][] = [
    ['get', (id) => client.get(id as string), 'id'],
    ['wait', (id) => client.wait(id as string, { timeoutMs: 1_000 }), 'id'],
    ['cancel', (id) => client.cancel(id as string), 'id'],
    ['watch', (id) => client.watch({ taskId: id as string }), 'taskId'],
    ['cancelMany', (id) => client.cancelMany({ ids: ['ok', id as string] }), 'ids.1'],
    ['redrive', (id) => client.redrive({ ids: ['ok', id as string] }), 'ids.1'],
    [
      'purge',
      (id) => client.purge({ status: TaskStatus.DEAD, olderThan: '1d', ids: [id as string] }),
      'ids.0',
    ],
  ];

  for (const [method, call, path] of calls) {
    for (const [label, id] of IMPOSSIBLE_IDS) {
      it(`${method} refuses an id that is ${label} with a ValidationError, before any call`, async () => {
        const error = await failureOf(() => call(id));

        expect(error).toBeInstanceOf(ValidationError);
        expect((error as ValidationError).issues).toEqual([
          {
            path,
            message: expect.stringMatching(
              /^expected a task id \(1-128 printable ASCII characters without spaces\), received /,
            ),
          },
        ]);
        expect(dynamodbCalls).toEqual([]);
      });
    }
  }

  it('still reads, waits for and cancels tasks with any id a task can have', async () => {
    const ids = ['a', 'x'.repeat(128), 'orders/42:v~1'];
    for (const id of ids) await client.enqueue(ping, { n: 1 }, { id });

    const read = await Promise.all(ids.map((id) => client.get(id)));
    const cancelled = await client.cancel('a');

    expect(read.map((r) => r?.id)).toEqual(ids);
    expect(cancelled.status).toBe(TaskStatus.CANCELLED);
    expect(await client.get('no-such-task')).toBeUndefined();
  });
});

describe('new TaskClient', () => {
  const location = () => ({ tableName: executor.tableName, queueUrl: executor.queueUrl });

  it('refuses an option it does not know, naming the one meant', () => {
    const error = failureOfSync(() => new TaskClient({ ...location(), tablename: 'x' } as never));

    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).issues).toEqual([
      {
        path: 'options.tablename',
        message: expect.stringMatching(
          /^unknown option "tablename" \(did you mean "tableName"\?\)/,
        ),
      },
    ]);
  });

  it('refuses an endpoint, saying how to point the client at one, instead of writing elsewhere', () => {
    const error = failureOfSync(
      () => new TaskClient({ ...location(), endpoint: 'http://localhost:1' } as never),
    );

    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).issues).toEqual([
      {
        path: 'options.endpoint',
        message: expect.stringContaining('TaskClient has no endpoint option; set AWS_ENDPOINT_URL'),
      },
    ]);
  });

  it('takes the locations Tasklane hands out as they are', async () => {
    const described = {
      ...location(),
      workerFunctionName: 'worker',
      eventBus: 'bus',
      deadLetterQueueUrl: executor.deadLetterQueueUrl,
    };

    const report = await new TaskClient(described).check();

    expect(report.ok).toBe(true);
  });
});

function failureOfSync(call: () => unknown): unknown {
  try {
    call();
    return undefined;
  } catch (err) {
    return err;
  }
}
