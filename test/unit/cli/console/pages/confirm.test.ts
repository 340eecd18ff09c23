import { describe, expect, it } from 'vitest';
import {
  type ConsoleAction,
  parseConfirmed,
} from '../../../../../packages/cli/src/console/actions.js';
import { confirmPage } from '../../../../../packages/cli/src/console/pages/confirm.js';
import type { PageContext } from '../../../../../packages/cli/src/console/pages/layout.js';
import { FIXTURE_NOW } from '../../../../helpers/task-record.js';

const ctx: PageContext = { csrf: 'csrf', readOnly: false, now: FIXTURE_NOW };

/** A form's fields, each with every value given. */
function form(fields: Record<string, string[]>): (name: string) => readonly string[] {
  return (name) => fields[name] ?? [];
}

describe('parseConfirmed', () => {
  it('reads a purge with its listed ids, the time they were listed and the typed count', () => {
    // Arrange
    const fields = form({
      olderThanDays: ['7'],
      id: ['a', 'b'],
      asOf: [String(FIXTURE_NOW - 60_000)],
      count: [' 2 '],
    });

    // Act
    const parsed = parseConfirmed('purge', fields, FIXTURE_NOW);

    // Assert
    expect(parsed).toEqual({
      action: {
        kind: 'purge',
        olderThanDays: 7,
        snapshot: { ids: ['a', 'b'], asOf: FIXTURE_NOW - 60_000 },
      },
    });
  });

  it('refuses a purge without its list, its time or the typed count, naming each', () => {
    // Act
    const parsed = parseConfirmed('purge', form({ olderThanDays: ['0'] }), FIXTURE_NOW);

    // Assert
    expect(parsed).toEqual({
      problems: [
        'the purge lists no task (field "id"): nothing to delete',
        '"asOf" must be the time the confirmation was shown; received ""',
        'type the number of tasks listed (0) to confirm the purge; received ""',
      ],
    });
  });

  it('refuses a count that is not the number listed, and a confirmation over an hour old', () => {
    // Arrange
    const fields = form({
      olderThanDays: ['0'],
      id: ['a', 'b', 'c'],
      asOf: [String(FIXTURE_NOW - 3_600_001)],
      count: ['2'],
    });

    // Act
    const parsed = parseConfirmed('purge', fields, FIXTURE_NOW);

    // Assert
    expect(parsed).toMatchObject({
      problems: [
        expect.stringContaining('more than an hour old'),
        'type the number of tasks listed (3) to confirm the purge; received "2"',
      ],
    });
  });

  it('reads the other actions as parseAction does', () => {
    expect(parseConfirmed('redrive', form({ id: ['a'] }), FIXTURE_NOW)).toEqual({
      action: { kind: 'redrive', ids: ['a'] },
    });
  });
});

describe('confirmPage', () => {
  it.each<ConsoleAction>([
    { kind: 'redrive', ids: ['a'] },
    { kind: 'cancel', ids: ['a'] },
    { kind: 'pause', name: 'nightly' },
    { kind: 'resume', name: 'nightly' },
    { kind: 'purge', olderThanDays: 0 },
  ])('focuses no button of a $kind confirmation', (action) => {
    // Act
    const page = String(confirmPage(ctx, action, '/', { ids: ['a'], total: 1, asOf: FIXTURE_NOW }));

    // Assert
    expect(page).toContain(`Confirm ${action.kind}</button>`);
    expect(page).not.toContain('autofocus');
  });

  it('carries a purge’s listed ids and time in the form, and asks for their number', () => {
    // Act
    const page = String(
      confirmPage(ctx, { kind: 'purge', olderThanDays: 3 }, '/dead', {
        ids: ['a', 'b'],
        total: 250,
        asOf: FIXTURE_NOW,
      }),
    );

    // Assert
    expect(page).toContain('<input type="hidden" name="id" value="a">');
    expect(page).toContain('<input type="hidden" name="id" value="b">');
    expect(page).toContain(`<input type="hidden" name="asOf" value="${FIXTURE_NOW}">`);
    expect(page).toContain('Type 2, the number of tasks to delete');
    expect(page).toContain('name="count"');
    expect(page).toContain('250 tasks match; this purge deletes the 2 listed');
  });

  it('offers no purge when nothing matches', () => {
    // Act
    const page = String(
      confirmPage(ctx, { kind: 'purge', olderThanDays: 30 }, '/dead', {
        ids: [],
        total: 0,
        asOf: FIXTURE_NOW,
      }),
    );

    // Assert
    expect(page).toContain('nothing would be deleted');
    expect(page).not.toContain('<form');
  });
});

describe('confirmPage of a lane', () => {
  const paused = {
    lane: 'bulk',
    paused: true,
    changedAt: FIXTURE_NOW - 60_000,
    principal: 'arn:aws:iam::1:user/alice',
    reason: 'vendor outage',
    mappings: ['m-1'],
  };

  it('shows the lane’s state now, carries the lane, and says when confirming changes nothing', () => {
    // Act
    const resume = String(
      confirmPage(ctx, { kind: 'resume-lane', lane: 'bulk' }, '/', undefined, undefined, paused),
    );
    const pauseAgain = String(
      confirmPage(ctx, { kind: 'pause-lane', lane: 'bulk' }, '/', undefined, undefined, paused),
    );

    // Assert
    expect(resume).toContain('Resume the lane &quot;bulk&quot;');
    expect(resume).toContain(
      'The lane &quot;bulk&quot; has been paused since 2023-11-14 22:12:20 UTC by arn:aws:iam::1:user/alice: vendor outage (it disabled the event source mapping(s) m-1).',
    );
    expect(resume).toContain('<input type="hidden" name="lane" value="bulk">');
    expect(resume).not.toContain('name="reason"');
    expect(pauseAgain).toContain('nothing new is received from its queue until it is resumed');
    expect(pauseAgain).toContain('Confirming changes nothing: it stays paused.');
    expect(pauseAgain).toContain('name="reason"');
  });
});
