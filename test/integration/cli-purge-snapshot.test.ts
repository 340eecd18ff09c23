/**
 * `tasklane purge` deletes what its dry run showed and the operator confirmed, never what
 * matches by the time the confirmation comes (docs/adr/0039-operator-audit.md).
 */
import { beforeEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { purgeCommand } from '../../packages/cli/src/commands/purge.js';
import { createOutput } from '../../packages/cli/src/output.js';
import { TaskStatus } from '../../src/core/constants.js';
import { PermanentError } from '../../src/core/errors.js';
import { defineTask } from '../../src/tasks/task-definition.js';
import { setupExecutor, type TestExecutor } from '../helpers/executor.js';

const broken = defineTask('broken', {
  schema: z.object({ n: z.number() }),
  retry: { maxAttempts: 1 },
  handler: () => {
    throw new PermanentError('always fails');
  },
});

let executor: TestExecutor;

beforeEach(async () => {
  executor = await setupExecutor();
});

describe('tasklane purge', () => {
  it('deletes only the tasks its dry run listed, keeping one that died while it asked', async () => {
    const client = executor.client();
    const shown = await client.enqueue(broken, { n: 1 });
    await executor.drain(executor.worker([broken]));
    const later = await client.enqueue(broken, { n: 2 });
    const printed: string[] = [];
    const sink = { write: (s: string) => printed.push(s) };
    const context = {
      out: createOutput(true, { stdout: sink, stderr: sink }),
      // While the operator reads the question, another task dies.
      confirm: async () => {
        await executor.drain(executor.worker([broken]));
      },
    };

    const result = await purgeCommand(client, context, { olderThan: '0s', dryRun: false });

    expect(result?.purged).toEqual([shown.id]);
    expect(await client.get(shown.id)).toBeUndefined();
    expect((await client.get(later.id))?.status).toBe(TaskStatus.DEAD);
  });
});
