import { describe, expect, it } from 'vitest';
import { AWS_SHAPE, requestDelay } from '../lib/latency.js';

describe('requestDelay', () => {
  it('gives DynamoDB 5 ms and SQS 15 ms at the middle of the jitter', () => {
    expect(requestDelay('DynamoDBClient', AWS_SHAPE, () => 0.5)).toBeCloseTo(5);
    expect(requestDelay('SQSClient', AWS_SHAPE, () => 0.5)).toBeCloseTo(15);
  });

  it('keeps the jitter within ±40% of the base', () => {
    expect(requestDelay('SQSClient', AWS_SHAPE, () => 0)).toBeCloseTo(9);
    expect(requestDelay('SQSClient', AWS_SHAPE, () => 0.999999)).toBeCloseTo(21);
  });
});
