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
