import { describe, expect, it } from 'vitest';
import { delayedClientToken } from '../../../src/scheduler/delayed.js';

const NAME = 'task.order-1';
const AT = 'at(2026-12-01T09:00:00)';
const BODY = '{"tasklane":1,"id":"order-1","type":"report"}';
const CREATED = 1_764_528_000_000;

describe('delayedClientToken', () => {
  it('is the same for every attempt of one record', () => {
    expect(delayedClientToken(NAME, AT, BODY, CREATED)).toBe(
      delayedClientToken(NAME, AT, BODY, CREATED),
    );
  });

  it('changes with the record (a re-enqueue after a rollback), the expression and the input', () => {
    const first = delayedClientToken(NAME, AT, BODY, CREATED);

    const others = [
      delayedClientToken(NAME, AT, BODY, CREATED + 1),
      delayedClientToken(NAME, 'at(2026-12-01T09:00:01)', BODY, CREATED),
      delayedClientToken(NAME, AT, BODY.replace('report', 'other'), CREATED),
      delayedClientToken('task.order-2', AT, BODY, CREATED),
    ];

    expect(new Set([first, ...others]).size).toBe(5);
  });

  it('fits Scheduler ClientToken limit of 64 characters', () => {
    expect(delayedClientToken(NAME, AT, BODY, CREATED)).toMatch(/^[0-9a-f]{64}$/);
  });
});
