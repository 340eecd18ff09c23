import { beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { TaskStatus } from '../../src/core/constants.js';
import { defineTask } from '../../src/tasks/task-definition.js';
import { executorEnv, runCli } from '../helpers/cli.js';
import { setupExecutor, type TestExecutor } from '../helpers/executor.js';

const save = defineTask('save', { schema: z.object({ n: z.number() }), handler: () => undefined });
const debounce = { key: 'doc-7', windowMs: 30_000, mode: 'last' } as const;

let executor: TestExecutor;
let id: string;

beforeAll(async () => {
  executor = await setupExecutor();
  const client = executor.client();
  for (let n = 1; n <= 3; n++) id = (await client.enqueue(save, { n }, { debounce })).id;
});

describe('a debounced task', () => {
  it('shows its key, mode and absorbed enqueues in get and list', async () => {
    // Arrange
    const client = executor.client();

    // Act
    const got = await client.get(id);
    const listed = await client.list({ type: 'save' });

    // Assert
    expect(got?.debounce).toEqual({ key: 'doc-7', mode: 'last', absorbed: 2 });
    expect(got?.status).toBe(TaskStatus.PENDING);
    expect(listed.items.map((r) => [r.id, r.debounce])).toEqual([[id, got?.debounce]]);
  });

  it('shows them in the CLI (show, and list --json)', async () => {
    // Arrange
    const env = executorEnv(executor);

    // Act
    const shown = await runCli(['show', id], env);
    const listed = JSON.parse((await runCli(['list', '--json'], env)).stdout);

    // Assert
    expect(shown.code).toBe(0);
    expect(shown.stdout).toMatch(
      /debounce\s+│ key doc-7 \(last\), 2 enqueue\(s\) absorbed, window ends 20/,
    );
    expect(listed.items).toEqual([
      expect.objectContaining({ id, debounce: { key: 'doc-7', mode: 'last', absorbed: 2 } }),
    ]);
  });
});
