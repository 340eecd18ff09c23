import { describe, expect, it } from 'vitest';
import { costPerMillion } from '../lib/cost.js';
import { floorRequests, floorWrites, powertoolsFloor, tasklaneFloor } from '../lib/floor.js';
import { LAMBDA_ASSUMPTIONS, PRICES } from '../prices.js';

const zero = { requests: 0, billedRequests: 0, writeUnits: 0, indexWriteUnits: 0, readUnits: 0 };

describe('costPerMillion', () => {
  it('prices each line item per million tasks', () => {
    // Arrange: one billed SQS request, one table and one index write unit, one read unit.
    const usage = {
      tally: {
        'SQS.SendMessage': { ...zero, requests: 1, billedRequests: 1 },
        'DynamoDB.PutItem': {
          ...zero,
          requests: 1,
          billedRequests: 1,
          writeUnits: 1,
          indexWriteUnits: 1,
        },
        'DynamoDB.GetItem': { ...zero, requests: 1, billedRequests: 1, readUnits: 1 },
      },
      lambdaInvocations: 0.1,
    };

    // Act
    const cost = costPerMillion(usage);

    // Assert
    expect(cost.sqs).toBeCloseTo(PRICES.sqsFifoPerMillionRequests);
    expect(cost.dynamodbWrites).toBeCloseTo(2 * PRICES.dynamodbPerMillionWriteUnits);
    expect(cost.dynamodbReads).toBeCloseTo(PRICES.dynamodbPerMillionReadUnits);
    expect(cost.lambdaRequests).toBeCloseTo(0.1 * PRICES.lambdaPerMillionRequests);
    const gbSeconds =
      0.1 *
      1e6 *
      (LAMBDA_ASSUMPTIONS.memoryMb / 1024) *
      (LAMBDA_ASSUMPTIONS.durationMsPerInvocation / 1000);
    expect(cost.lambdaCompute).toBeCloseTo(gbSeconds * PRICES.lambdaPerGbSecondArm);
    expect(cost.total).toBeCloseTo(
      cost.sqs +
        cost.dynamodbWrites +
        cost.dynamodbReads +
        cost.lambdaRequests +
        cost.lambdaCompute,
    );
  });
});

describe('the paper floor', () => {
  it('costs a successful Tasklane task 3 writes and 3.3 requests at batch size 10', () => {
    const lines = tasklaneFloor('successful', 10);
    expect(floorWrites(lines)).toBe(3);
    expect(floorRequests(lines)).toBeCloseTo(3.3);
  });

  it('costs a successful Powertools task 2 writes and 2.3 requests at batch size 10', () => {
    const lines = powertoolsFloor('successful', 10) ?? [];
    expect(floorWrites(lines)).toBe(2);
    expect(floorRequests(lines)).toBeCloseTo(2.3);
  });

  it('adds two writes, a receive and the visibility change for one Tasklane retry', () => {
    const extra =
      floorRequests(tasklaneFloor('retried', 10)) - floorRequests(tasklaneFloor('successful', 10));
    // claim + retry + ReceiveMessage/10 + ChangeMessageVisibilityBatch/10
    expect(extra).toBeCloseTo(2.2);
  });

  it('has no delayed delivery for Powertools', () => {
    expect(powertoolsFloor('delayed', 10)).toBeUndefined();
  });
});
