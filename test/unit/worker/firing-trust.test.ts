import { describe, expect, it } from 'vitest';
import { ConfigurationError } from '../../../src/core/errors.js';
import {
  FIRING_CLOCK_SKEW_MS,
  firingProblem,
  principalOf,
  resolveFiringSenders,
} from '../../../src/worker/firing-trust.js';

const NOW = Date.parse('2026-11-30T01:00:00Z');
const firing = { schedule: 'nightly', scheduledTime: '2026-11-30T01:00:00Z' };
const scheduler = { kind: 'scheduler', senderId: 'AROAEXAMPLE' } as const;

describe('resolveFiringSenders', () => {
  it('takes the option before the environment', () => {
    const senders = resolveFiringSenders('AROAOPTION', {
      TASKLANE_SCHEDULER_SENDER_ID: 'AROAENV',
    });

    expect(senders).toEqual({ kind: 'scheduler', senderId: 'AROAOPTION' });
  });

  it('reads TASKLANE_SCHEDULER_SENDER_ID, keeping only the principal part', () => {
    const senders = resolveFiringSenders(undefined, {
      TASKLANE_SCHEDULER_SENDER_ID: 'AROAENV:session',
    });

    expect(senders).toEqual({ kind: 'scheduler', senderId: 'AROAENV' });
  });

  it('is unconfigured, not open, when nothing is set', () => {
    expect(resolveFiringSenders(undefined, {})).toEqual({ kind: 'unconfigured' });
    expect(resolveFiringSenders(undefined, { TASKLANE_SCHEDULER_SENDER_ID: ' ' })).toEqual({
      kind: 'unconfigured',
    });
  });

  it("knows the delayed tasks' role from TASKLANE_DELAYED_SCHEDULER_SENDER_ID", () => {
    const senders = resolveFiringSenders(undefined, {
      TASKLANE_SCHEDULER_SENDER_ID: 'AROARECURRING',
      TASKLANE_DELAYED_SCHEDULER_SENDER_ID: 'AROADELAYED:session',
    });

    expect(senders).toEqual({
      kind: 'scheduler',
      senderId: 'AROARECURRING',
      delayedSenderId: 'AROADELAYED',
    });
  });

  it("refuses one role for both groups: producers' schedules deliver as the delayed one", () => {
    expect(() =>
      resolveFiringSenders('AROASAME', { TASKLANE_DELAYED_SCHEDULER_SENDER_ID: 'AROASAME' }),
    ).toThrow(ConfigurationError);
  });

  it("accepts any sender only when opted out with false or '*'", () => {
    expect(resolveFiringSenders(false, {})).toEqual({ kind: 'any' });
    expect(resolveFiringSenders(undefined, { TASKLANE_SCHEDULER_SENDER_ID: '*' })).toEqual({
      kind: 'any',
    });
  });
});

describe('principalOf', () => {
  it("drops a role session's name", () => {
    expect(principalOf('AROAEXAMPLE:scheduler-session')).toBe('AROAEXAMPLE');
    expect(principalOf('AIDAUSER')).toBe('AIDAUSER');
  });
});

describe('firingProblem', () => {
  it("admits the scheduler role's firing, whatever its session", () => {
    expect(firingProblem(firing, 'AROAEXAMPLE:abc123', scheduler, NOW)).toBeUndefined();
  });

  it('refuses another sender, one whose id only starts like the role, and a missing one', () => {
    expect(firingProblem(firing, 'AIDAPRODUCER', scheduler, NOW)).toMatch(/scheduler role/);
    expect(firingProblem(firing, 'AROAEXAMPLEX:s', scheduler, NOW)).toMatch(/scheduler role/);
    expect(firingProblem(firing, undefined, scheduler, NOW)).toMatch(/scheduler role/);
  });

  it("refuses a firing the delayed tasks' role delivered, naming it", () => {
    const both = { ...scheduler, delayedSenderId: 'AROADELAYED' } as const;

    expect(firingProblem(firing, 'AROADELAYED:s', both, NOW)).toMatch(
      /delayed tasks' scheduler role/,
    );
    expect(firingProblem(firing, 'AROAEXAMPLE:s', both, NOW)).toBeUndefined();
  });

  it('refuses everything when unconfigured', () => {
    expect(firingProblem(firing, 'AROAEXAMPLE', { kind: 'unconfigured' }, NOW)).toMatch(
      /no scheduler sender id/,
    );
  });

  it('refuses reserved schedule names even from any sender', () => {
    const any = { kind: 'any' } as const;

    expect(firingProblem({ ...firing, schedule: 'task.x' }, 'x', any, NOW)).toMatch(/reserved/);
    expect(firingProblem({ ...firing, schedule: 'task_x' }, 'x', any, NOW)).toMatch(/reserved/);
  });

  it('allows the skew allowance into the future, and no more', () => {
    const at = (ms: number) => ({
      ...firing,
      scheduledTime: new Date(ms).toISOString().replace('.000Z', 'Z'),
    });

    expect(
      firingProblem(at(NOW + FIRING_CLOCK_SKEW_MS), 'AROAEXAMPLE', scheduler, NOW),
    ).toBeUndefined();
    expect(
      firingProblem(at(NOW + FIRING_CLOCK_SKEW_MS + 1000), 'AROAEXAMPLE', scheduler, NOW),
    ).toMatch(/skew allowance/);
  });
});
