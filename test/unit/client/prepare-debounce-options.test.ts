import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { prepareTask } from '../../../src/client/prepare.js';
import { ValidationError } from '../../../src/core/errors.js';
import { debounceTaskId, pointerKey } from '../../../src/store/debounce.js';
import { defineTask } from '../../../src/tasks/task-definition.js';

const LIMIT = 1_024;
const NOW = 1_700_000_000_000;
const save = defineTask('save', { schema: z.object({ n: z.number() }), handler: () => undefined });

async function issuesOf(options: unknown): Promise<{ path: string; message: string }[]> {
  const err = await prepareTask(save, { n: 1 }, options as never, LIMIT, NOW).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ValidationError);
  return [...(err as ValidationError).issues];
}

describe('prepareTask with debounce', () => {
  it('starts the task at the end of the window and keeps the debounce spec', async () => {
    // Act
    const task = await prepareTask(
      save,
      { n: 1 },
      { debounce: { key: 'doc-1', windowMs: 5000, mode: 'last' } },
      LIMIT,
      NOW,
    );

    // Assert
    expect(task.runAt).toBe(NOW + 5000);
    expect(task.debounce).toEqual({ key: 'doc-1', windowMs: 5000, mode: 'last' });
  });

  it.each([
    ['a zero window', { key: 'k', windowMs: 0, mode: 'last' }, 'options.debounce.windowMs'],
    ['a negative window', { key: 'k', windowMs: -5, mode: 'last' }, 'options.debounce.windowMs'],
    [
      'a window over an hour',
      { key: 'k', windowMs: 3_600_001, mode: 'last' },
      'options.debounce.windowMs',
    ],
    [
      'a fractional window',
      { key: 'k', windowMs: 1.5, mode: 'first' },
      'options.debounce.windowMs',
    ],
    ['an empty key', { key: '', windowMs: 10, mode: 'last' }, 'options.debounce.key'],
    ['a key with a space', { key: 'a b', windowMs: 10, mode: 'last' }, 'options.debounce.key'],
    ['an unknown mode', { key: 'k', windowMs: 10, mode: 'middle' }, 'options.debounce.mode'],
    [
      'a misspelt field',
      { key: 'k', windowMs: 10, mode: 'last', windowMS: 3 },
      'options.debounce.windowMS',
    ],
    ['a string', 'k', 'options.debounce'],
  ])('refuses %s, saying what was expected', async (_label, debounce, path) => {
    // Act
    const issues = await issuesOf({ debounce });

    // Assert
    expect(issues.map((i) => i.path)).toEqual([path]);
    expect(issues[0]?.message).toMatch(/^(expected|unknown option)/);
  });

  it.each([
    ['id', { id: 'mine' }],
    ['delay', { delay: 1000 }],
    ['runAt', { runAt: new Date(NOW + 1000) }],
    ['dependsOn', { dependsOn: ['parent-1'] }],
  ])('refuses debounce together with %s', async (name, other) => {
    // Act
    const issues = await issuesOf({ ...other, debounce: { key: 'k', windowMs: 10, mode: 'last' } });

    // Assert
    expect(issues).toEqual([
      {
        path: `options.${name}`,
        message: expect.stringContaining(`expected no ${name} with debounce`),
      },
    ]);
  });

  it('reports every problem at once', async () => {
    // Act
    const issues = await issuesOf({ id: 'x', debounce: { key: '', windowMs: 0, mode: 'z' } });

    // Assert
    expect(issues.map((i) => i.path)).toEqual([
      'options.id',
      'options.debounce.key',
      'options.debounce.windowMs',
      'options.debounce.mode',
    ]);
  });

  it("refuses explicit ids in the debounced tasks' namespace", async () => {
    // Act
    const issues = await issuesOf({ id: 'debounce-abc-1' });

    // Assert
    expect(issues.map((i) => i.path)).toEqual(['options.id']);
    expect(issues[0]?.message).toContain('reserved for debounced tasks');
  });
});

describe('debounceTaskId', () => {
  it('is stable per type, key and generation, and differs when any of them does', () => {
    // Act
    const ids = [
      debounceTaskId('save', 'doc-1', 1),
      debounceTaskId('save', 'doc-1', 2),
      debounceTaskId('save', 'doc-2', 1),
      debounceTaskId('load', 'doc-1', 1),
    ];

    // Assert
    expect(debounceTaskId('save', 'doc-1', 1)).toBe(ids[0]);
    expect(new Set(ids).size).toBe(4);
    for (const id of ids) expect(id).toMatch(/^debounce-[0-9a-f]{40}-\d+$/);
  });

  it('keeps the pointer apart from every task id (a space)', () => {
    expect(pointerKey('save', 'doc-1')).toBe('debounce save doc-1');
  });
});
