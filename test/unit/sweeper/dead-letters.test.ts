import { describe, expect, it } from 'vitest';
import { TaskStatus } from '../../../src/core/constants.js';
import { decideDeadLetter } from '../../../src/sweeper/dead-letters.js';
import { FIXTURE_NOW, taskRecord as record } from '../../helpers/task-record.js';

const NOW = FIXTURE_NOW;

describe('decideDeadLetter', () => {
  it('requeues a RUNNING task under an expired lease with attempts left', () => {
    const task = record({
      status: TaskStatus.RUNNING,
      attempt: 1,
      maxAttempts: 3,
      leaseExpiresAt: NOW - 1,
    });

    expect(decideDeadLetter(task, NOW)).toEqual({ kind: 'requeue', record: task });
  });

  it('declares DEAD a RUNNING task under an expired lease on its final attempt', () => {
    const task = record({
      status: TaskStatus.RUNNING,
      attempt: 3,
      maxAttempts: 3,
      leaseExpiresAt: NOW,
    });

    expect(decideDeadLetter(task, NOW)).toEqual({ kind: 'expire', record: task });
  });

  it('leaves a RUNNING task under a live lease for a later sweep', () => {
    const task = record({ status: TaskStatus.RUNNING, attempt: 1, leaseExpiresAt: NOW + 1 });

    expect(decideDeadLetter(task, NOW)).toEqual({ kind: 'leave' });
  });

  it('resends a QUEUED task, whose only message the letter was', () => {
    const task = record({ status: TaskStatus.QUEUED, attempt: 1 });

    expect(decideDeadLetter(task, NOW)).toEqual({ kind: 'resend', record: task });
  });

  it.each([TaskStatus.PENDING, TaskStatus.SUCCEEDED, TaskStatus.CANCELLED, TaskStatus.ROLLED_BACK])(
    'deletes the letter of a %s task: the outbox re-sends it, or it has finished',
    (status) => {
      expect(decideDeadLetter(record({ status }), NOW)).toEqual({ kind: 'delete' });
    },
  );

  it('deletes the letter of a SUSPENDED task: the wake pass sends it a new message when due', () => {
    const task = record({ status: TaskStatus.SUSPENDED });

    expect(decideDeadLetter(task, NOW)).toEqual({ kind: 'delete' });
  });

  it('deletes the letter of a task that does not exist', () => {
    expect(decideDeadLetter(undefined, NOW)).toEqual({ kind: 'delete' });
  });

  it.each([TaskStatus.DEAD, TaskStatus.WAITING, TaskStatus.SCHEDULED])(
    'leaves the letter of a %s task to the operator’s drain',
    (status) => {
      expect(decideDeadLetter(record({ status }), NOW)).toEqual({ kind: 'leave' });
    },
  );

  it.each([TaskStatus.RUNNING, TaskStatus.QUEUED, TaskStatus.DEAD])(
    'deletes a letter of an earlier record of the id, never repairing the %s record of now',
    (status) => {
      const task = record({ status, attempt: 1, leaseExpiresAt: NOW - 1 });

      expect(decideDeadLetter(task, NOW, { createdAt: task.createdAt - 1 })).toEqual({
        kind: 'delete',
      });
    },
  );

  it('repairs from a letter that names the current record, or names none (an older sender)', () => {
    const task = record({ status: TaskStatus.QUEUED, attempt: 1 });

    expect(decideDeadLetter(task, NOW, { createdAt: task.createdAt })).toEqual({
      kind: 'resend',
      record: task,
    });
    expect(decideDeadLetter(task, NOW, {})).toEqual({ kind: 'resend', record: task });
  });
});
