import { describe, expect, it, vi } from 'vitest';
import {
  isPermanentError,
  isTasklaneError,
  PermanentError,
  TaskTimeoutError,
} from '../../../src/core/errors.js';

/** A second copy of the error classes, as a handler bundled with its own Tasklane has. */
async function copyOfErrors(): Promise<typeof import('../../../src/core/errors.js')> {
  vi.resetModules();
  return import('../../../src/core/errors.js');
}

describe('isPermanentError', () => {
  it('recognises a PermanentError', () => {
    expect(isPermanentError(new PermanentError('card declined'))).toBe(true);
  });

  it('recognises a PermanentError from another copy of the classes, which fails instanceof', async () => {
    const copy = await copyOfErrors();

    const error = new copy.PermanentError('card declined');

    expect(error).not.toBeInstanceOf(PermanentError);
    expect(isPermanentError(error)).toBe(true);
  });

  it('rejects other Tasklane errors, of either copy, and look-alikes without the brand', async () => {
    const copy = await copyOfErrors();

    expect(isPermanentError(new TaskTimeoutError('t', 1))).toBe(false);
    expect(isPermanentError(new copy.TaskTimeoutError('t', 1))).toBe(false);
    expect(isPermanentError(Object.assign(new Error('x'), { code: 'PERMANENT' }))).toBe(false);
    expect(isPermanentError('PERMANENT')).toBe(false);
  });
});

describe('isTasklaneError', () => {
  it('recognises the errors of another copy of the classes', async () => {
    const copy = await copyOfErrors();

    expect(isTasklaneError(new copy.TaskTimeoutError('t', 1))).toBe(true);
    expect(isTasklaneError(new Error('plain'))).toBe(false);
  });
});
