import { SQSClient } from '@aws-sdk/client-sqs';

/**
 * An SQS client whose sends are throttled: a transient fault, so an enqueue through it stores
 * the task PENDING and reports `sent: false` for the sweeper (a wrong queue URL, by contrast,
 * is a ConfigurationError).
 */
export function throttledSqs(): SQSClient {
  const sqs = new SQSClient({ region: 'us-east-1', useQueueUrlAsEndpoint: false });
  sqs.middlewareStack.add(
    (next, context) => async (args) => {
      if (
        context.commandName === 'SendMessageCommand' ||
        context.commandName === 'SendMessageBatchCommand'
      ) {
        throw Object.assign(new Error('Rate exceeded'), {
          name: 'ThrottlingException',
          $fault: 'client',
        });
      }
      return next(args);
    },
    { step: 'initialize', name: 'throttle-sends' },
  );
  return sqs;
}
