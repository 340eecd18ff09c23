import type { Message, MessageAttributeValue } from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import { interpretBatchResponse, toSqsRecord } from '../../../src/worker/sqs-poller.js';

const batch = new Set(['m1', 'm2', 'm3']);
const ARN = 'arn:aws:sqs:eu-west-1:123456789012:jobs-work.fifo';

const failures = (...ids: unknown[]) => ({
  batchItemFailures: ids.map((itemIdentifier) => ({ itemIdentifier })),
});

describe('interpretBatchResponse', () => {
  describe('treats the whole batch as successful', () => {
    it.each([
      ['undefined', undefined],
      ['null', null],
      ['an empty string', ''],
      ['an empty object', {}],
      ['an empty batchItemFailures list', { batchItemFailures: [] }],
      ['a null batchItemFailures', { batchItemFailures: null }],
    ])('for %s', (_label, response) => {
      const verdict = interpretBatchResponse(response, batch);

      expect(verdict).toEqual({ ok: true, failedIds: new Set() });
    });
  });

  it('fails exactly the listed messages', () => {
    const verdict = interpretBatchResponse(failures('m3', 'm1'), batch);

    expect(verdict).toEqual({ ok: true, failedIds: new Set(['m1', 'm3']) });
  });

  it('fails every message when every message is listed', () => {
    const verdict = interpretBatchResponse(failures('m1', 'm2', 'm3'), batch);

    expect(verdict).toEqual({ ok: true, failedIds: batch });
  });

  it('ignores other keys next to a valid item', () => {
    const response = { batchItemFailures: [{ itemIdentifier: 'm2', reason: 'x' }], other: 1 };

    expect(interpretBatchResponse(response, batch)).toEqual({
      ok: true,
      failedIds: new Set(['m2']),
    });
  });

  describe('fails the whole batch', () => {
    it.each([
      ['a number', 42],
      ['zero', 0],
      ['a boolean', true],
      ['false', false],
      ['a non-empty string', 'm1'],
      ['a JSON string', '{"batchItemFailures":[]}'],
      ['an array', [{ itemIdentifier: 'm1' }]],
      ['an empty array', []],
      ['batchItemFailures as an object', { batchItemFailures: { itemIdentifier: 'm1' } }],
      ['batchItemFailures as a string', { batchItemFailures: 'm1' }],
      ['batchItemFailures as a number', { batchItemFailures: 1 }],
      ['a missing itemIdentifier', { batchItemFailures: [{}] }],
      ['a null itemIdentifier', failures(null)],
      ['an empty-string itemIdentifier', failures('')],
      ['a numeric itemIdentifier', failures(1)],
      ['an object itemIdentifier', failures({ id: 'm1' })],
      ['an unknown message id', failures('m4')],
      ['a misspelled key', { batchItemFailures: [{ itemIdentifer: 'm1' }] }],
      ['a null item', { batchItemFailures: [null] }],
      ['a string item', { batchItemFailures: ['m1'] }],
      ['one bad item among good ones', failures('m1', '', 'm2')],
      ['one unknown id among known ones', failures('m1', 'nope')],
    ])('for %s', (_label, response) => {
      const verdict = interpretBatchResponse(response, batch);

      expect(verdict.ok).toBe(false);
      if (!verdict.ok) expect(verdict.reason).not.toBe('');
    });
  });

  it('names the unknown id in the reason', () => {
    expect(interpretBatchResponse(failures('m9'), batch)).toEqual({
      ok: false,
      reason: "itemIdentifier 'm9' is not in the batch",
    });
  });

  it('quotes the bad item in the reason', () => {
    const verdict = interpretBatchResponse({ batchItemFailures: [{ itemIdentifer: 'm1' }] }, batch);

    expect(verdict).toEqual({
      ok: false,
      reason: 'invalid itemIdentifier: {"itemIdentifer":"m1"}',
    });
  });
});

describe('toSqsRecord', () => {
  const message: Message = {
    MessageId: 'mid-1',
    ReceiptHandle: 'rh-1',
    Body: '{"tasklane":1}',
    MD5OfBody: 'md5',
    Attributes: {
      ApproximateReceiveCount: '3',
      SentTimestamp: '1700000000000',
      SenderId: 'AIDAEXAMPLE',
      ApproximateFirstReceiveTimestamp: '1700000000500',
      SequenceNumber: '18849496460467696128',
      MessageGroupId: 'customer-42',
      MessageDeduplicationId: 'dedup-1',
      AWSTraceHeader: 'Root=1-abc',
    },
    MessageAttributes: {
      tenant: { DataType: 'String', StringValue: 'acme' },
      blob: { DataType: 'Binary', BinaryValue: new Uint8Array([0, 1, 2, 250, 255]) },
      count: { DataType: 'Number', StringValue: '7' },
    },
  };

  it('builds the record Lambda would deliver', () => {
    // Act
    const record = toSqsRecord(message, ARN, 'eu-west-1');

    // Assert
    expect(record).toEqual({
      messageId: 'mid-1',
      receiptHandle: 'rh-1',
      body: '{"tasklane":1}',
      attributes: {
        ApproximateReceiveCount: '3',
        SentTimestamp: '1700000000000',
        SenderId: 'AIDAEXAMPLE',
        ApproximateFirstReceiveTimestamp: '1700000000500',
        SequenceNumber: '18849496460467696128',
        MessageGroupId: 'customer-42',
        MessageDeduplicationId: 'dedup-1',
        AWSTraceHeader: 'Root=1-abc',
      },
      messageAttributes: {
        tenant: {
          dataType: 'String',
          stringValue: 'acme',
          stringListValues: [],
          binaryListValues: [],
        },
        blob: {
          dataType: 'Binary',
          binaryValue: Buffer.from([0, 1, 2, 250, 255]).toString('base64'),
          stringListValues: [],
          binaryListValues: [],
        },
        count: {
          dataType: 'Number',
          stringValue: '7',
          stringListValues: [],
          binaryListValues: [],
        },
      },
      md5OfBody: 'md5',
      eventSource: 'aws:sqs',
      eventSourceARN: ARN,
      awsRegion: 'eu-west-1',
    });
  });

  it('encodes binary attributes as base64', () => {
    const record = toSqsRecord(message, ARN, 'eu-west-1');

    expect(record.messageAttributes.blob?.binaryValue).toBe('AAEC+v8=');
  });

  it('leaves FIFO-only attributes out for a standard-queue message', () => {
    const standard: Message = {
      MessageId: 'mid-2',
      ReceiptHandle: 'rh-2',
      Body: 'x',
      Attributes: { ApproximateReceiveCount: '1', SentTimestamp: '1' },
    };

    const record = toSqsRecord(standard, ARN, 'us-east-1');

    expect(record.attributes).not.toHaveProperty('MessageGroupId');
    expect(record.attributes).not.toHaveProperty('SequenceNumber');
    expect(record.attributes).not.toHaveProperty('MessageDeduplicationId');
    expect(record.attributes).not.toHaveProperty('AWSTraceHeader');
    expect(record.messageAttributes).toEqual({});
  });

  it('fills defaults for a message without attributes', () => {
    const record = toSqsRecord({}, ARN, 'us-east-1');

    expect(record).toMatchObject({
      messageId: '',
      receiptHandle: '',
      body: '',
      md5OfBody: '',
      attributes: {
        ApproximateReceiveCount: '1',
        SentTimestamp: '',
        SenderId: '',
        ApproximateFirstReceiveTimestamp: '',
      },
      eventSource: 'aws:sqs',
      eventSourceARN: ARN,
      awsRegion: 'us-east-1',
    });
  });

  it('defaults a message attribute without a data type to String', () => {
    // The SDK types DataType as required; the wire format does not guarantee it.
    const untyped = { StringValue: 'v' } as MessageAttributeValue;

    const record = toSqsRecord({ MessageAttributes: { a: untyped } }, ARN, 'r');

    expect(record.messageAttributes.a).toMatchObject({ dataType: 'String', stringValue: 'v' });
  });
});
