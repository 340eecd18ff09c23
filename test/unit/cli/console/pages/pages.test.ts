import { describe, expect, it } from 'vitest';
import { confirmPage } from '../../../../../packages/cli/src/console/pages/confirm.js';
import type { PageContext } from '../../../../../packages/cli/src/console/pages/layout.js';
import { schedulesPage } from '../../../../../packages/cli/src/console/pages/schedules.js';
import { taskDetailPage } from '../../../../../packages/cli/src/console/pages/tasks.js';
import { AuditEvent, TaskStatus } from '../../../../../src/core/constants.js';
import { FIXTURE_NOW, taskRecord } from '../../../../helpers/task-record.js';

const MARKUP = '<img src=x onerror=alert(1)>';
const ctx: PageContext = { csrf: 'csrf"><b>', readOnly: false, now: FIXTURE_NOW };

/** Every page is rendered synchronously: no promise is ever interpolated. */
function text(rendered: unknown): string {
  return String(rendered);
}

describe('console pages', () => {
  it('escape every field of a task that a producer or handler controls', () => {
    // Arrange
    const record = taskRecord({
      id: `id-${MARKUP}`,
      type: `type-${MARKUP}`,
      status: TaskStatus.DEAD,
      orderingKey: `key-${MARKUP}`,
      payload: { note: MARKUP },
      result: MARKUP,
      workerId: `worker-${MARKUP}`,
      lastError: { name: `Err${MARKUP}`, message: MARKUP },
      deadReason: MARKUP,
      history: [
        {
          event: AuditEvent.DEAD,
          at: FIXTURE_NOW,
          attempt: 1,
          status: TaskStatus.DEAD,
          workerId: MARKUP,
          detail: MARKUP,
        },
      ],
    });

    // Act
    const page = text(taskDetailPage(ctx, record));

    // Assert
    expect(page).not.toContain('<img');
    expect(page).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(page).toContain(
      `/confirm?action=redrive&amp;id=id-%3Cimg%20src%3Dx%20onerror%3Dalert(1)%3E`,
    );
  });

  it('escape the CSRF token and the hidden fields of a confirmation', () => {
    // Act
    const page = text(confirmPage(ctx, { kind: 'redrive', ids: [`"${MARKUP}`] }, '/dead'));

    // Assert
    expect(page).toContain('name="_csrf" value="csrf&quot;&gt;&lt;b&gt;"');
    expect(page).toContain('name="id" value="&quot;&lt;img');
    expect(page).not.toContain('<img');
  });

  it('escape schedule names and payloads', () => {
    // Act
    const page = text(
      schedulesPage(
        ctx,
        [
          {
            summary: { name: MARKUP, arn: 'arn', state: 'ENABLED', kind: 'recurring' },
            details: undefined,
            recent: [],
          },
        ],
        undefined,
      ),
    );

    // Assert
    expect(page).not.toContain('<img');
    expect(page).toContain('Pause &lt;img');
  });

  it('show no action on a task page in read-only mode', () => {
    // Act
    const page = text(
      taskDetailPage({ ...ctx, readOnly: true }, taskRecord({ status: TaskStatus.DEAD })),
    );

    // Assert
    expect(page).not.toContain('/confirm');
    expect(page).toContain('Read-only: actions are disabled');
  });
});

describe('console task page', () => {
  it('shows a debounced task’s key, mode and absorbed enqueues, escaped', () => {
    // Arrange
    const record = taskRecord({
      status: TaskStatus.PENDING,
      runAt: FIXTURE_NOW + 30_000,
      debounce: { key: '<b>doc</b>', mode: 'last', absorbed: 4 },
    });

    // Act
    const page = text(taskDetailPage(ctx, record));

    // Assert
    expect(page).toContain('<dt>Debounce</dt>');
    expect(page).toContain('key <code>&lt;b&gt;doc&lt;/b&gt;</code> (last), 4 enqueue(s) absorbed');
  });
});

describe('console task page: pause and resume', () => {
  it('shows a sleeping task’s wake time and offers to pause it', () => {
    // Arrange
    const record = taskRecord({
      id: 'sleeper',
      status: TaskStatus.SUSPENDED,
      wait: { kind: 'sleep', step: 1, name: 'nap', epoch: 0, until: Date.UTC(2026, 0, 31, 9) },
    });

    // Act
    const page = text(taskDetailPage(ctx, record));

    // Assert
    expect(page).toContain('<dt>Sleeping</dt><dd><code>nap</code>, wakes <time');
    expect(page).toContain('2026-01-31 09:00:00 UTC');
    expect(page).toContain('/confirm?action=pause-task&amp;id=sleeper');
    expect(page).not.toContain('action=resume-task');
  });

  it('shows a paused signal wait: its signal, its timeout and the status it resumes to', () => {
    // Arrange
    const record = taskRecord({
      id: 'held',
      status: TaskStatus.PAUSED,
      pausedFrom: TaskStatus.SUSPENDED,
      wait: { kind: 'signal', step: 0, name: '<b>ok</b>', epoch: 0, until: FIXTURE_NOW + 60_000 },
    });

    // Act
    const page = text(taskDetailPage(ctx, record));

    // Assert
    expect(page).toContain(
      '<dt>Waiting for signal</dt><dd><code>&lt;b&gt;ok&lt;/b&gt;</code>, times out <time',
    );
    expect(page).toContain('resumes to <span class="status status-suspended">SUSPENDED</span>');
    expect(page).toContain('/confirm?action=resume-task&amp;id=held');
    expect(page).not.toContain('action=pause-task');
  });

  it('says a pause of a RUNNING task is a request, and offers to take a pending one back', () => {
    // Arrange
    const runningTask = taskRecord({ id: 'busy', status: TaskStatus.RUNNING });
    const asked = taskRecord({
      id: 'busy',
      status: TaskStatus.RUNNING,
      pauseRequested: true,
      pauseRequestedAt: FIXTURE_NOW,
    });

    // Act
    const before = text(taskDetailPage(ctx, runningTask));
    const after = text(taskDetailPage(ctx, asked));

    // Assert
    expect(before).toContain('Ask this task to pause…');
    expect(before).toContain('it pauses at its next step, checkpoint or heartbeat');
    expect(after).not.toContain('action=pause-task');
    expect(after).toContain('Take back the pause request…');
    expect(after).toContain('<dt>Pause requested</dt>');
  });

  it('offers to pause and resume the task’s ordering key, encoded, and nothing in read-only mode', () => {
    // Arrange
    const record = taskRecord({ status: TaskStatus.PENDING, orderingKey: 'acct/7&x' });

    // Act
    const page = text(taskDetailPage(ctx, record));
    const readOnly = text(taskDetailPage({ ...ctx, readOnly: true }, record));

    // Assert
    expect(page).toContain('/confirm?action=pause-key&amp;key=acct%2F7%26x');
    expect(page).toContain('/confirm?action=resume-key&amp;key=acct%2F7%26x');
    expect(readOnly).not.toContain('/confirm');
  });
});
