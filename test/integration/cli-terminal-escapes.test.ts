import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { taskMessage } from '../../src/core/message.js';
import { defineTask } from '../../src/tasks/task-definition.js';
import { executorEnv, runCli } from '../helpers/cli.js';
import { setupExecutor, type TestExecutor } from '../helpers/executor.js';
import { putRawItem, rawItem } from '../helpers/raw-item.js';

/** Retitles the window, clears the screen, forges a link and hides what follows. */
const ANSI =
  '\u001b]0;owned\u0007\u001b[2J\u001b]8;;https://evil.example/\u0007click\u001b]8;;\u0007\u001b[8m';
/** Shows `invoice.pdf` for a name that ends in `.exe`, and a one-byte CSI (C1). */
const BIDI_C1 = 'invoice\u202efdp.exe\u2066\u009b31m\u007f';

/** What a terminal would act on: any control character but the newline ending each line. */
function unsafeIn(output: string): string[] {
  return [...output].filter((c) => c !== '\n' && /[\p{Cc}\p{Bidi_Control}\u2028\u2029]/u.test(c));
}

const importRow = defineTask('import-row', {
  schema: z.object({ name: z.string() }),
  retry: { maxAttempts: 1 },
  handler: ({ name }) => {
    throw new Error(`row rejected: unknown customer ${name}`);
  },
});

let executor: TestExecutor;
let env: Record<string, string>;

beforeAll(async () => {
  executor = await setupExecutor();
  env = executorEnv(executor);
  const client = executor.client();
  await client.enqueue(importRow, { name: `bob${ANSI}${BIDI_C1}` }, { id: 'ansi-1' });
  await executor.drain(executor.worker([importRow]));
  // A producer may write any attribute (docs/security.md): a type and a dead reason too.
  const item = await rawItem(executor, 'ansi-1');
  await putRawItem(executor, {
    ...item,
    type: `import-row${ANSI}`,
    deadReason: `gave up${BIDI_C1}`,
  });
  await executor.clients.sqs.send(
    new SendMessageCommand({
      QueueUrl: executor.deadLetterQueueUrl,
      ...taskMessage({ id: 'ansi-1', type: `t${ANSI}`, generation: 1, messageGroupId: 'g' }),
    }),
  );
});

describe('tasklane human-readable output', () => {
  it('shows control and bidi characters of a task as visible escapes in show', async () => {
    // Act
    const run = await runCli(['show', 'ansi-1'], env);

    // Assert
    expect(run.code).toBe(0);
    expect(unsafeIn(run.stdout)).toEqual([]);
    expect(run.stdout).toContain('\\x1b]0;owned\\x07');
    expect(run.stdout).toContain('invoice\\u202efdp.exe\\u2066\\x9b31m\\x7f');
  });

  it('prints no control character in tail, list, status and dlq peek', async () => {
    // Act
    const runs = await Promise.all([
      runCli(['tail', '--id', 'ansi-1', '--interval', '100'], env),
      runCli(['list', '--status', 'DEAD'], env),
      runCli(['status', '--by-type'], env),
      runCli(['dlq', 'peek'], env),
    ]);

    // Assert
    for (const run of runs) {
      expect(run.code).toBe(0);
      expect(unsafeIn(run.stdout)).toEqual([]);
    }
    expect(runs[0]?.stdout).toContain('unknown customer bob\\x1b]0;owned');
    expect(runs[1]?.stdout).toContain('import-row\\x1b]0;owned');
  });

  it('prints no control character of an argument in an error message', async () => {
    // Act
    const run = await runCli(['show', `missing${BIDI_C1}`], env);

    // Assert: no task can have that id, which the client refuses as a usage error.
    expect(run.code).toBe(2);
    expect(unsafeIn(run.stderr)).toEqual([]);
    expect(run.stderr).toContain('missing');
  });
});

describe('tasklane --json', () => {
  it('keeps every character of the record exact', async () => {
    // Act
    const run = await runCli(['show', 'ansi-1', '--json'], env);

    // Assert
    const shown = JSON.parse(run.stdout);
    expect(shown.type).toBe(`import-row${ANSI}`);
    expect(shown.deadReason).toBe(`gave up${BIDI_C1}`);
    expect(shown.lastError.message).toContain(`bob${ANSI}${BIDI_C1}`);
  });
});
