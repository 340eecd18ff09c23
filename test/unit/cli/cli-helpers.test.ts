import { describe, expect, it } from 'vitest';
import { timeline } from '../../../packages/cli/src/commands/show.js';
import { taskStatuses } from '../../../packages/cli/src/context.js';
import { CliError, ExitCode, exitCodeOf } from '../../../packages/cli/src/exit-codes.js';
import { humanDuration } from '../../../packages/cli/src/output.js';
import { instantOption } from '../../../packages/cli/src/time-option.js';
import { durationMs } from '../../../src/client/duration.js';
import {
  ConfigurationError,
  ScheduleNotFoundError,
  TaskNotFoundError,
  TransitionRejectedError,
  ValidationError,
} from '../../../src/core/errors.js';
import { taskRecord } from '../../helpers/task-record.js';

describe('durationMs', () => {
  it('reads every unit and plain milliseconds', () => {
    const cases = ['250ms', '90s', '15m', '12h', '30d', '2w', 1500] as const;

    const values = cases.map((c) => durationMs(c, 'x'));

    expect(values).toEqual([250, 90_000, 900_000, 43_200_000, 2_592_000_000, 1_209_600_000, 1500]);
  });

  it('rejects anything else, quoting it and the accepted forms', () => {
    const attempts = ['30 days', '-1d', '', -5, Number.NaN, '1y'];

    const errors = attempts.map((a) => {
      try {
        durationMs(a, '--older-than');
        return undefined;
      } catch (err) {
        return err;
      }
    });

    for (const error of errors) {
      expect(error).toBeInstanceOf(ValidationError);
      expect((error as Error).message).toContain('expected a duration such as 90s');
    }
  });
});

describe('instantOption', () => {
  it('reads a duration back from now or an ISO time', () => {
    const parse = instantOption('--since', () => 1_000_000);

    expect(parse('10s')).toBe(990_000);
    expect(parse('2026-11-30T12:00:00Z')).toBe(Date.parse('2026-11-30T12:00:00Z'));
  });

  it('exits with usage for anything else, naming the option', () => {
    const parse = instantOption('--until');

    expect(() => parse('yesterday')).toThrow(/--until expects a duration back from now/);
  });
});

describe('taskStatuses', () => {
  it('returns known statuses', () => {
    const statuses = taskStatuses(['DEAD', 'QUEUED'], '--status');

    expect(statuses).toEqual(['DEAD', 'QUEUED']);
  });

  it('exits with usage quoting every unknown value and listing the statuses', () => {
    const attempt = () => taskStatuses(['DEAD', 'DONE', 'dead'], '--status');

    expect(attempt).toThrow(CliError);
    expect(attempt).toThrow(
      '--status expects one or more of WAITING, SCHEDULED, PENDING, QUEUED, RUNNING, SUSPENDED, PAUSED, SUCCEEDED, DEAD, CANCELLED, ROLLED_BACK, received "DONE", "dead".',
    );
  });
});

describe('exitCodeOf', () => {
  it('maps each error family to its documented exit code', () => {
    const cases: [unknown, number][] = [
      [new ValidationError('x', []), ExitCode.USAGE],
      [new ConfigurationError('x'), ExitCode.CONFIGURATION],
      [new TaskNotFoundError('t'), ExitCode.NOT_FOUND],
      [new ScheduleNotFoundError('s'), ExitCode.NOT_FOUND],
      [new TransitionRejectedError('cancel', 't', undefined), ExitCode.PARTIAL],
      [new CliError('x', ExitCode.NOT_CONFIRMED), ExitCode.NOT_CONFIRMED],
      [Object.assign(new Error('x'), { name: 'CredentialsProviderError' }), ExitCode.CONFIGURATION],
      [new Error('boom'), ExitCode.FAILURE],
    ];

    const codes = cases.map(([err]) => exitCodeOf(err));

    expect(codes).toEqual(cases.map(([, code]) => code));
  });
});

describe('timeline', () => {
  it("puts each run's duration on the entry that ended it", () => {
    const record = taskRecord({
      history: [
        { event: 'submitted', at: 0, attempt: 0, status: 'PENDING' },
        { event: 'claimed', at: 100, attempt: 1, status: 'RUNNING' },
        { event: 'retry-scheduled', at: 350, attempt: 1, status: 'QUEUED' },
        { event: 'claimed', at: 1000, attempt: 2, status: 'RUNNING' },
        { event: 'succeeded', at: 1800, attempt: 2, status: 'SUCCEEDED' },
      ],
    });

    const rows = timeline(record);

    expect(rows.map((r) => r.durationMs)).toEqual([undefined, undefined, 250, undefined, 800]);
  });

  it("merges a durable task's stored steps in by time and ends a slice at its continuation", () => {
    const record = taskRecord({
      history: [
        { event: 'submitted', at: 0, attempt: 0, status: 'PENDING' },
        { event: 'claimed', at: 100, attempt: 1, status: 'RUNNING' },
        { event: 'continued', at: 400, attempt: 1, status: 'QUEUED' },
        { event: 'claimed', at: 1000, attempt: 1, status: 'RUNNING' },
        { event: 'succeeded', at: 1500, attempt: 1, status: 'SUCCEEDED' },
      ],
      steps: [
        { index: 0, name: 'fetch', at: 200, sizeBytes: 12, attempt: 1, workerId: 'w1' },
        { index: 1, name: 'store', at: 1200, sizeBytes: 0, attempt: 1, workerId: 'w2' },
      ],
    });

    const rows = timeline(record);

    expect(
      rows.map((r) => `${r.event}${r.durationMs === undefined ? '' : `:${r.durationMs}`}`),
    ).toEqual([
      'submitted',
      'claimed',
      'step-stored',
      'continued:300',
      'claimed',
      'step-stored',
      'succeeded:500',
    ]);
    expect(rows[2]?.detail).toBe('step 0 "fetch" (12 bytes)');
  });
});

describe('humanDuration', () => {
  it('picks a unit that reads at a glance', () => {
    expect([850, 12_300, 245_000, 11_520_000, 187_200_000].map(humanDuration)).toEqual([
      '850ms',
      '12.3s',
      '4m 05s',
      '3h 12m',
      '2d 4h',
    ]);
  });
});
