import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { prepareTask } from '../../../src/client/prepare.js';
import { TaskClient } from '../../../src/client/task-client.js';
import { assertTaskStatus } from '../../../src/client/validate.js';
import type { TaskStatus } from '../../../src/core/constants.js';
import { ValidationError } from '../../../src/core/errors.js';
import { silentLogger } from '../../../src/observability/logger.js';
import { defineTask } from '../../../src/tasks/task-definition.js';

const ping = defineTask('ping', { schema: z.object({ n: z.number() }), handler: () => undefined });

/** What a promise rejected with. */
async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => undefined,
    (err: unknown) => err,
  );
}

describe('prepareTask options', () => {
  it('rejects an unknown option, quoting it and suggesting the one meant', async () => {
    const error = await rejection(prepareTask(ping, { n: 1 }, { idd: 'x' } as never, 1024));

    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).issues).toEqual([
      {
        path: 'options.idd',
        message:
          'unknown option "idd" (did you mean "id"?); expected one of id, orderingKey, runAt, delay, debounce, dependsOn, onParentDead',
      },
    ]);
  });

  it('reports every unknown option with the other problems, at once', async () => {
    const error = await rejection(
      prepareTask(ping, { n: 'one' }, { ordering: 'k', priority: 1 } as never, 1024),
    );

    const paths = (error as ValidationError).issues.map((i) => i.path);
    expect(paths).toEqual(['options.ordering', 'options.priority', 'payload.n']);
  });

  it('rejects options that are not an object', async () => {
    const error = await rejection(prepareTask(ping, { n: 1 }, null as never, 1024));

    expect((error as ValidationError).issues).toEqual([
      { path: 'options', message: 'expected an object, received null' },
    ]);
  });

  it('accepts every documented option', async () => {
    const task = await prepareTask(ping, { n: 1 }, { id: 'a', orderingKey: 'k', delay: 0 }, 1024);

    expect(task).toMatchObject({ id: 'a', orderingKey: 'k' });
  });
});

describe('assertTaskStatus', () => {
  it('returns a known status', () => {
    const status = assertTaskStatus('DEAD', 'list status');

    expect(status).toBe('DEAD');
  });

  it.each([['DONE'], ['dead'], [undefined], [3]])('rejects %j, listing the statuses', (value) => {
    const attempt = () => assertTaskStatus(value, 'list status');

    expect(attempt).toThrow(ValidationError);
    expect(attempt).toThrow(
      /status: expected one of WAITING, SCHEDULED, PENDING, QUEUED, RUNNING, SUSPENDED, PAUSED, SUCCEEDED, DEAD, CANCELLED, ROLLED_BACK, received/,
    );
  });
});

describe('TaskClient.listByStatus', () => {
  it('rejects an unknown status before calling AWS', async () => {
    const client = new TaskClient({
      tableName: 't',
      queueUrl: 'http://localhost:1/000000000000/q.fifo',
      logger: silentLogger,
    });

    const error = await rejection(client.listByStatus('DONE' as TaskStatus));

    expect(error).toBeInstanceOf(ValidationError);
    expect((error as Error).message).toContain('received "DONE"');
  });
});
