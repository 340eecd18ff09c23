import { describe, expect, it } from 'vitest';
import { scheduleFirings } from '../../../src/scheduler/firings.js';

const NOW = Date.parse('2026-03-10T12:34:56Z');

function schedule(expression: string, extra: Partial<Parameters<typeof scheduleFirings>[0]> = {}) {
  return {
    name: 'nightly',
    expression,
    timezone: 'UTC',
    startDate: undefined,
    endDate: undefined,
    createdAt: new Date('2026-01-01T00:00:00Z'),
    ...extra,
  };
}

describe('scheduleFirings', () => {
  it('gives the next firings after now and the recent ones before it, newest first, with their task ids', () => {
    // Act
    const { next, recent } = scheduleFirings(schedule('cron(0 2 * * ? *)'), NOW);

    // Assert
    expect(next.map((f) => f.at.toISOString())).toEqual([
      '2026-03-11T02:00:00.000Z',
      '2026-03-12T02:00:00.000Z',
      '2026-03-13T02:00:00.000Z',
    ]);
    expect(recent.map((f) => f.taskId)).toEqual([
      'nightly@2026-03-10T02:00:00Z',
      'nightly@2026-03-09T02:00:00Z',
      'nightly@2026-03-08T02:00:00Z',
      'nightly@2026-03-07T02:00:00Z',
      'nightly@2026-03-06T02:00:00Z',
    ]);
  });

  it('reads a cron on the wall clock of its time zone', () => {
    // Act
    const { next } = scheduleFirings(
      schedule('cron(0 9 * * ? *)', { timezone: 'Europe/Paris' }),
      NOW,
    );

    // Assert
    expect(next[0]?.at.toISOString()).toBe('2026-03-11T08:00:00.000Z');
  });

  it('lists no recent firing before the schedule was created (a rate counts from its creation)', () => {
    // Act
    const { recent } = scheduleFirings(
      schedule('rate(1 hour)', { createdAt: new Date('2026-03-10T10:00:00Z') }),
      NOW,
    );

    // Assert
    expect(recent.map((f) => f.at.toISOString())).toEqual([
      '2026-03-10T12:00:00.000Z',
      '2026-03-10T11:00:00.000Z',
      '2026-03-10T10:00:00.000Z',
    ]);
  });

  it('finds the last firing of a monthly cron a month back', () => {
    // Act
    const { recent } = scheduleFirings(schedule('cron(0 0 1 * ? *)'), NOW, { next: 1, recent: 1 });

    // Assert
    expect(recent.map((f) => f.taskId)).toEqual(['nightly@2026-03-01T00:00:00Z']);
  });

  it('gives no next firing once the end date has passed, and none for an unreadable expression', () => {
    // Act
    const ended = scheduleFirings(
      schedule('rate(5 minutes)', { endDate: new Date('2026-03-01T00:00:00Z') }),
      NOW,
    );
    const unreadable = scheduleFirings(schedule('every day'), NOW);

    // Assert
    expect(ended.next).toEqual([]);
    expect(unreadable).toEqual({ next: [], recent: [] });
  });
});
