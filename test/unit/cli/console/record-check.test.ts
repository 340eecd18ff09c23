import { describe, expect, it } from 'vitest';
import type { PageContext } from '../../../../packages/cli/src/console/pages/layout.js';
import { taskDetailPage, taskTable } from '../../../../packages/cli/src/console/pages/tasks.js';
import { recordProblems } from '../../../../packages/cli/src/console/record-check.js';
import { AuditEvent, TaskStatus } from '../../../../src/core/constants.js';
import type { TaskRecord } from '../../../../src/core/record.js';
import { FIXTURE_NOW, taskRecord } from '../../../helpers/task-record.js';

const ctx: PageContext = { csrf: 'csrf', readOnly: false, now: FIXTURE_NOW };

/** A record as the store maps a producer's odd item: the types are not what they claim. */
function malformed(fields: Record<string, unknown>): TaskRecord {
  return { ...taskRecord({ id: 'odd' }), ...fields } as TaskRecord;
}

describe('recordProblems', () => {
  it('finds nothing wrong with a record Tasklane wrote', () => {
    // Arrange
    const record = taskRecord({
      status: TaskStatus.DEAD,
      lastError: { name: 'Error', message: 'x' },
      history: [{ event: AuditEvent.DEAD, at: FIXTURE_NOW, attempt: 1, status: TaskStatus.DEAD }],
      parents: ['p'],
    });

    // Act / Assert
    expect(recordProblems(record)).toEqual([]);
  });

  it('names each odd field, what it holds and what was expected', () => {
    // Arrange
    const record = malformed({
      status: { toLowerCase: 'x' },
      attempt: Number.NaN,
      lastError: { name: { isEscaped: true }, message: 'm' },
      parents: 'p',
      history: [{ event: 'dead', at: 'soon', attempt: 1, status: 'GONE' }],
    });

    // Act
    const problems = recordProblems(record);

    // Assert
    expect(problems).toEqual([
      expect.stringMatching(
        /^status: expected one of WAITING, .*; the record holds an object "\{\\"toLowerCase\\":\\"x\\"\}"$/,
      ),
      'attempt: expected a number; the record holds the number NaN',
      expect.stringMatching(
        /^lastError: expected nothing, or \{ name, message \} with two strings/,
      ),
      'parents: expected a list of task ids or nothing; the record holds the string "p"',
      expect.stringMatching(/^history\[0\]\.status: expected one of .*the string "GONE"$/),
      'history[0].at: expected a time (epoch ms); the record holds the string "soon"',
    ]);
  });

  it('lists at most twenty problems, and counts the rest', () => {
    // Arrange
    const record = malformed({ history: Array.from({ length: 30 }, () => ({})) });

    // Act
    const problems = recordProblems(record);

    // Assert
    expect(problems).toHaveLength(21);
    expect(problems[20]).toBe('and 100 more');
  });
});

describe('console pages of a malformed record', () => {
  it('show a list row saying the record is malformed, instead of failing the page', () => {
    // Arrange
    const rows = [taskRecord({ id: 'fine' }), malformed({ status: 7 })];

    // Act
    const page = String(taskTable(rows, 'Tasks'));

    // Assert
    expect(page).toContain('href="/tasks/fine"');
    expect(page).toContain('href="/tasks/odd"');
    expect(page).toContain('malformed record: open it to see what is wrong');
  });

  it('would fail on the record if rendered as it is (why the check comes first)', () => {
    expect(() => taskDetailPage(ctx, malformed({ status: { toLowerCase: 'x' } }))).toThrow(
      TypeError,
    );
  });
});
