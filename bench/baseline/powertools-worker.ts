/**
 * The Powertools baseline: the consumer a team would build with Powertools for AWS Lambda
 * instead of Tasklane. `SqsFifoPartialProcessorAsync` (the async form of
 * `SqsFifoPartialProcessor`, needed because the record handler is async) reports partial
 * batch failures; `makeIdempotent` with the DynamoDB persistence layer keeps a record per
 * message so that a redelivery is not run twice. Both are used as documented, with
 * defaults, except `skipGroupOnError`: each task is its own message group here, and
 * Tasklane also holds back only the failed message's group, so the two apply the same FIFO
 * rule.
 *
 * Powertools has no producer side: the baseline's producer is a plain SendMessageBatch.
 */
import { processPartialResponse, SqsFifoPartialProcessorAsync } from '@aws-lambda-powertools/batch';
import { IdempotencyConfig, makeIdempotent } from '@aws-lambda-powertools/idempotency';
import { DynamoDBPersistenceLayer } from '@aws-lambda-powertools/idempotency/dynamodb';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { noop } from '../fixtures/noop.js';
import { failsThisTime } from './message.js';

/** Options of {@link createPowertoolsHandler}. */
export interface PowertoolsHandlerOptions {
  /** The idempotency table (partition key `id`, a string). */
  readonly tableName: string;
  /** @default a new client from the environment */
  readonly dynamodb?: DynamoDBClient;
}

/** Builds the baseline's Lambda handler. */
export function createPowertoolsHandler(
  options: PowertoolsHandlerOptions,
): (event: SQSEvent, context: Context) => Promise<SQSBatchResponse> {
  const persistenceStore = new DynamoDBPersistenceLayer({
    tableName: options.tableName,
    ...(options.dynamodb === undefined ? {} : { awsSdkV3Client: options.dynamodb }),
  });
  // The message id is stable across redeliveries: the key Powertools' docs use for SQS.
  const config = new IdempotencyConfig({ eventKeyJmesPath: 'messageId' });
  const processor = new SqsFifoPartialProcessorAsync();
  const recordHandler = makeIdempotent(
    async (record: SQSRecord): Promise<void> => {
      await noop();
      if (failsThisTime(record.body, record.attributes.ApproximateReceiveCount)) {
        throw new Error('first delivery fails on purpose');
      }
    },
    { persistenceStore, config },
  );
  return async (event, context) => {
    config.registerLambdaContext(context);
    return processPartialResponse(event, recordHandler, processor, {
      context,
      skipGroupOnError: true,
    });
  };
}
