import { describe, expect, it } from 'vitest';
import {
  LAMBDA_WORKER_ID,
  REALISTIC_PAYLOAD_BYTES,
  realisticPayload,
} from '../fixtures/realistic.js';

describe('the realistic scenario', () => {
  it.each([0, 7, 999, 123_456])('pads the payload of task %i to 300 bytes of JSON', (i) => {
    expect(Buffer.byteLength(JSON.stringify(realisticPayload(i)))).toBe(REALISTIC_PAYLOAD_BYTES);
  });

  it('shapes the worker id like a Lambda log stream name, 52 characters', () => {
    expect(LAMBDA_WORKER_ID).toMatch(/^\d{4}\/\d{2}\/\d{2}\/\[\$LATEST\][0-9a-f]{32}$/);
    expect(LAMBDA_WORKER_ID).toHaveLength(52);
  });
});
