import { describe, expect, it } from 'vitest';
import { TaskStatus } from '../../../../src/core/constants.js';
import {
  and,
  compare,
  equals,
  exists,
  lessThanAttribute,
  oneOf,
} from '../../../../src/store/transitions/expression.js';

describe('store expressions', () => {
  it('declares every name and value a condition uses, beside its text', () => {
    const condition = and([
      oneOf('status', { scheduled: TaskStatus.SCHEDULED, pending: TaskStatus.PENDING }),
      equals('attempt', 'seenAttempt', 2),
      lessThanAttribute('attempt', 'maxAttempts'),
      compare('leaseExpiresAt', '<=', 'now', 9),
    ]);

    expect(condition).toEqual({
      expression:
        '#status IN (:scheduled, :pending) AND #attempt = :seenAttempt AND #attempt < #maxAttempts AND #leaseExpiresAt <= :now',
      names: {
        '#status': 'status',
        '#attempt': 'attempt',
        '#maxAttempts': 'maxAttempts',
        '#leaseExpiresAt': 'leaseExpiresAt',
      },
      values: {
        ':scheduled': TaskStatus.SCHEDULED,
        ':pending': TaskStatus.PENDING,
        ':seenAttempt': 2,
        ':now': 9,
      },
    });
  });

  it('writes one allowed state as an equality', () => {
    expect(oneOf('status', { dead: TaskStatus.DEAD }).expression).toBe('#status = :dead');
  });

  it('names an attribute under another placeholder where asked', () => {
    expect(exists('pk', 'id')).toEqual({
      expression: 'attribute_exists(#pk)',
      names: { '#pk': 'id' },
      values: {},
    });
  });
});
