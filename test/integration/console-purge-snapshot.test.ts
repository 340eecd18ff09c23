import { beforeAll, describe, expect, it } from 'vitest';
import type { TaskClient } from '../../src/client/task-client.js';
import { TaskStatus } from '../../src/core/constants.js';
import { fragileState, fragileTask } from '../helpers/console.js';
import { consoleApp, hiddenValues, postForm, TEST_CSRF } from '../helpers/console-app.js';
import { setupExecutor, type TestExecutor } from '../helpers/executor.js';

let executor: TestExecutor;
let client: TaskClient;

beforeAll(async () => {
  executor = await setupExecutor();
  client = executor.client();
  fragileState.healthy = false;
});

/** Makes DEAD tasks with these ids. */
async function deadTasks(...ids: string[]): Promise<void> {
  for (const id of ids) await client.enqueue(fragileTask, { note: id }, { id });
  await executor.drain(executor.worker([fragileTask]));
}

/** Opens the purge confirmation and returns the form it shows, filled with the typed count. */
async function confirmation(olderThanDays: number, count?: string) {
  const page = await (
    await consoleApp(client).request(`/confirm?action=purge&olderThanDays=${olderThanDays}`)
  ).text();
  const ids = hiddenValues(page, 'id');
  return {
    ids,
    fields: {
      olderThanDays: String(olderThanDays),
      id: ids,
      asOf: hiddenValues(page, 'asOf'),
      count: count ?? String(ids.length),
      _csrf: TEST_CSRF,
    },
  };
}

describe('console purge', () => {
  it('deletes the tasks its confirmation listed, not one that died after it was shown', async () => {
    // Arrange
    await deadTasks('purge-seen-1', 'purge-seen-2');
    const { ids, fields } = await confirmation(0);
    await deadTasks('purge-died-later');

    // Act
    const res = await postForm(consoleApp(client), '/actions/purge', fields);

    // Assert
    expect(ids).toEqual(expect.arrayContaining(['purge-seen-1', 'purge-seen-2']));
    expect(ids).not.toContain('purge-died-later');
    expect(await res.text()).toContain('purge-seen-1: deleted');
    expect(await client.get('purge-seen-1')).toBeUndefined();
    expect(await client.get('purge-died-later')).toMatchObject({ status: TaskStatus.DEAD });
  });

  it('keeps a listed task that was redriven and died again after the confirmation', async () => {
    // Arrange
    await deadTasks('purge-redriven');
    const { fields } = await confirmation(0);
    await client.redrive({ ids: ['purge-redriven'] });
    await executor.drain(executor.worker([fragileTask]));

    // Act
    const res = await postForm(consoleApp(client), '/actions/purge', fields);

    // Assert
    expect(await res.text()).toMatch(
      /purge-redriven: kept, no longer a DEAD task that died before the cutoff/,
    );
    expect(await client.get('purge-redriven')).toMatchObject({ status: TaskStatus.DEAD });
  });

  it('deletes nothing without the typed count, or with another number', async () => {
    // Arrange
    await deadTasks('purge-untyped');
    const blank = await confirmation(0, '');
    const wrong = await confirmation(0, '999');

    // Act
    const none = await postForm(consoleApp(client), '/actions/purge', blank.fields);
    const other = await postForm(consoleApp(client), '/actions/purge', wrong.fields);

    // Assert
    expect(none.status).toBe(400);
    expect(await none.text()).toContain('type the number of tasks listed');
    expect(other.status).toBe(400);
    expect(await client.get('purge-untyped')).toMatchObject({ status: TaskStatus.DEAD });
  });

  it('refuses a confirmation shown more than an hour ago', async () => {
    // Arrange
    await deadTasks('purge-stale');
    const { fields } = await confirmation(0);
    const later = consoleApp(client, { clock: () => Date.now() + 3_600_001 });

    // Act
    const res = await postForm(later, '/actions/purge', fields);

    // Assert
    expect(res.status).toBe(400);
    expect(await res.text()).toContain('more than an hour old');
    expect(await client.get('purge-stale')).toMatchObject({ status: TaskStatus.DEAD });
  });
});
