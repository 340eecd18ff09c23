import { describe, expect, it } from 'vitest';
import { SCHEDULE_NAME_PATTERN } from '../../../src/core/message.js';
import {
  delayedScheduleName,
  firingTaskId,
  isDelayedScheduleName,
  scheduleNameProblem,
} from '../../../src/scheduler/names.js';

describe('delayedScheduleName', () => {
  it.each([
    ['order-1', 'task.order-1'],
    ['01J9Z8Q2XKQ3V7T0B5D4C6E8F0', 'task.01J9Z8Q2XKQ3V7T0B5D4C6E8F0'],
    ['a.b_c-d', 'task.a.b_c-d'],
    ['x'.repeat(59), `task.${'x'.repeat(59)}`],
  ])('keeps a readable id: %s → %s', (id, name) => {
    expect(delayedScheduleName(id)).toBe(name);
  });

  it.each([
    ['x'.repeat(60)],
    ['x'.repeat(128)],
    ['order#1'],
    ['user@example.com'],
    ['a/b'],
    ['ümlaut'],
  ])('hashes a long or odd id (%s) into a valid, stable name', (id) => {
    const name = delayedScheduleName(id);

    expect(name).toMatch(SCHEDULE_NAME_PATTERN);
    expect(name).toMatch(/^task_[0-9a-f]{59}$/);
    expect(delayedScheduleName(id)).toBe(name);
    expect(isDelayedScheduleName(name)).toBe(true);
  });

  it('gives different ids different names', () => {
    expect(delayedScheduleName('a#1')).not.toBe(delayedScheduleName('a#2'));
    expect(delayedScheduleName('x'.repeat(60))).not.toBe(delayedScheduleName('x'.repeat(61)));
  });
});

describe('scheduleNameProblem', () => {
  it.each(['nightly-report', 'a', 'A.b_c-9', 'x'.repeat(64)])('accepts %s', (name) => {
    expect(scheduleNameProblem(name)).toBeUndefined();
  });

  it.each([
    ['x'.repeat(65), '65 characters'],
    ['', '0 characters'],
    ['has space', 'A-Z a-z 0-9'],
    ['a@b', 'A-Z a-z 0-9'],
    ['task.mine', 'reserved'],
    ['task_mine', 'reserved'],
  ])('rejects %j, saying %s', (name, expected) => {
    expect(scheduleNameProblem(name)).toContain(expected);
  });

  it('rejects a value that is not a string', () => {
    expect(scheduleNameProblem(7)).toContain('received number');
  });
});

describe('firingTaskId', () => {
  it('joins the schedule and the scheduled time, within the task id limits', () => {
    const id = firingTaskId('x'.repeat(64), '2026-03-22T18:59:43Z');

    expect(id).toBe(`${'x'.repeat(64)}@2026-03-22T18:59:43Z`);
    expect(id.length).toBeLessThanOrEqual(128);
  });
});
